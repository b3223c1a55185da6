import { FdxValidationError } from "../core/error.js";
import type { Context } from "../internal/context.js";
import { checkIds } from "../internal/validation.js";
import type { Statement } from "../models.js";
import { resolveHref } from "../pagination/links.js";
import { secretForms } from "../core/redact.js";

/** The ids of a statement, for when its link is not at hand. */
export interface StatementIds {
  providerId: string;
  accountId: string;
  /** The tokenized id as the service returned it; it is percent-encoded as a path segment. */
  statementId: string;
}

/**
 * What `statements.download` fetches: a `Statement` (its GET link, preferred since its tokenized id is already in URL
 * form), an href (relative to the host of `productsUrl`, or absolute on that origin), or the statement's ids.
 */
export type DownloadTarget = Statement | string | StatementIds;

/**
 * The absolute URL a target names.
 * @throws FdxValidationError for a target without a usable link or with bad ids.
 * @throws FdxLinkError for an href on another origin or scheme.
 */
export function targetUrl(p: Context, target: DownloadTarget, accept: string): string {
  // A statement's link came from a server, which may have put the token in it; a token function's tokens are not known here.
  const known = () => (typeof p.token === "string" ? secretForms(p.token) : []);
  if (typeof target === "string") {
    if (target === "") throw new FdxValidationError([{ path: "target", message: "must be a non-empty href" }]);
    return resolveHref(target, p.productsOrigin, known).href;
  }
  if (typeof target !== "object" || target === null) {
    throw new FdxValidationError([{ path: "target", message: "must be a Statement, an href or { providerId, accountId, statementId }" }]);
  }
  const link = downloadLink(target as Statement, accept);
  if (link !== undefined) return resolveHref(link, p.productsOrigin, known).href;
  if ("providerId" in target) {
    const { providerId, accountId, statementId } = target;
    checkIds({ providerId, accountId, statementId });
    const segments = [p.versions.statements, providerId, accountId, statementId].map(encodeURIComponent);
    return `${p.productsUrl}/statements/${segments.join("/")}`;
  }
  throw new FdxValidationError([{ path: "target.links", message: "the statement has no GET link to download it from" }]);
}

/** The statement's GET link (action GET or none), preferring one that offers the wanted media type. */
function downloadLink(statement: Statement, accept: string): string | undefined {
  if (!Array.isArray(statement.links)) return undefined;
  const usable = statement.links.filter(
    (link) =>
      typeof link === "object" && link !== null && typeof link.href === "string" && link.href !== "" && (link.action === undefined || link.action === "GET"),
  );
  const wanted = mediaTypes(accept);
  const offering = usable.find((link) => Array.isArray(link.types) && link.types.some((type) => wanted.has(type.toLowerCase())));
  return (offering ?? usable[0])?.href;
}

function mediaTypes(accept: string): Set<string> {
  return new Set(accept.split(",").map((part) => part.split(";")[0]!.trim().toLowerCase()));
}
