import { FdxResponseError, type FdxIssue } from "../core/error.js";
import { isRecord } from "../internal/is-record.js";
import type { Statement } from "../models.js";

/** One page of `statements.list`. */
export interface StatementPage {
  /** The page's statements (empty when the server sent none). */
  statements: Statement[];
  /**
   * `links.next.href` exactly as the server sent it; for a provider that pages with an FDX page object
   * (`page.nextOffset`), the next request's path and query. `undefined` on the last page.
   */
  nextHref: string | undefined;
  /**
   * `links.prev.href` exactly as the server sent it; where the provider sends no `prev`, the absolute URL this
   * paginator requested for the previous page (`undefined` on the first page).
   */
  prevHref: string | undefined;
}

/** A page as the server sent it: its hrefs before any fallback, and an FDX page object's `nextOffset`. */
export interface PageBody {
  statements: Statement[];
  nextHref: string | undefined;
  prevHref: string | undefined;
  /** `page.nextOffset` as a query value, when the provider pages with FDX page objects. */
  nextOffset: string | undefined;
}

/**
 * Checks what iteration relies on: an object, `statements` an array, link hrefs strings, `page.nextOffset` a string
 * or number. A missing `statements` is an empty page, and a missing, null or empty link means none: providers send all three.
 */
export function readPage(data: unknown, status: number, interactionId: string | undefined): PageBody {
  const fail = (issues: FdxIssue[]) => new FdxResponseError(status, issues, { interactionId });
  if (data === undefined) throw fail([{ path: "", message: "response body is empty" }]);
  if (!isRecord(data)) throw fail([{ path: "", message: "must be a statement list object" }]);
  const issues: FdxIssue[] = [];
  let statements: Statement[] = [];
  if (Array.isArray(data.statements)) statements = data.statements as Statement[];
  else if (data.statements != null) issues.push({ path: "statements", message: "must be an array" });

  let links: Record<string, unknown> = {};
  if (isRecord(data.links)) links = data.links;
  else if (data.links != null) issues.push({ path: "links", message: "must be an object" });
  const nextHref = linkHref(links.next, "links.next", issues);
  const prevHref = linkHref(links.prev, "links.prev", issues);

  let nextOffset: string | undefined;
  if (isRecord(data.page)) {
    const offset = data.page.nextOffset;
    if (typeof offset === "string" || (typeof offset === "number" && Number.isFinite(offset))) nextOffset = String(offset) || undefined;
    else if (offset != null) issues.push({ path: "page.nextOffset", message: "must be a string or a number" });
  } else if (data.page != null) issues.push({ path: "page", message: "must be an object" });

  if (issues.length) throw fail(issues);
  return { statements, nextHref, prevHref, nextOffset };
}

function linkHref(link: unknown, path: string, issues: FdxIssue[]): string | undefined {
  if (link == null) return undefined;
  if (!isRecord(link)) {
    issues.push({ path, message: "must be an object with an href" });
    return undefined;
  }
  const { href } = link;
  if (typeof href === "string") return href || undefined;
  if (href != null) issues.push({ path: `${path}.href`, message: "must be a string" });
  return undefined;
}
