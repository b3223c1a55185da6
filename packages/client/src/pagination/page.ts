import { FdxResponseError, type FdxIssue } from "../core/errors/index.js";
import type { Statement } from "../models.js";
import { bodyError } from "../download/body.js";
import { isRecord } from "../internal/is-record.js";
import { checkResponse, type Pipeline } from "../internal/pipeline.js";
import type { ReadResponse } from "../internal/transport.js";


/** One page of `statements.list`. */
export interface StatementPage {
  /** The page's statements (empty when the server sent none). */
  statements: Statement[];
  /** `links.next.href` exactly as the server sent it; `undefined` on the last page. */
  nextHref: string | undefined;
  /**
   * `links.prev.href` exactly as the server sent it; where the provider sends
   * no `prev`, the absolute URL this paginator requested for the previous
   * page (`undefined` on the first page).
   */
  prevHref: string | undefined;
}

/**
 * Reads and checks a page body; its `prevHref` is the server's, before any
 * fallback. Only what iteration relies on is always checked (an object,
 * `statements` an array, link hrefs strings): a missing `statements` is an
 * empty page, and a missing, null or empty link means "none", as providers
 * send all three. With `validateResponses`, the whole page is checked against
 * the statement list schema as well.
 */
export async function readPage(
  p: Pipeline,
  response: ReadResponse,
  url: string,
  signal: AbortSignal | undefined,
): Promise<StatementPage> {
  let text: string;
  try {
    text = await response.text();
  } catch (cause) {
    throw bodyError(cause, signal, url);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (cause) {
    const message = text === "" ? "response body is empty" : `response body is not valid JSON (${(cause as Error).message})`;
    throw new FdxResponseError(response.status, [{ path: "", message }], { cause });
  }
  if (!isRecord(data)) {
    throw new FdxResponseError(response.status, [{ path: "", message: "must be a statement list object" }]);
  }
  // Skipped when off rather than awaited for nothing: a page costs a promise turn less.
  if (p.validateResponses) await checkResponse(p, response.status, data, "statementList");
  const issues: FdxIssue[] = [];
  let statements: Statement[] = [];
  if (Array.isArray(data.statements)) statements = data.statements as Statement[];
  else if (data.statements != null) issues.push({ path: "statements", message: "must be an array" });

  let links: Record<string, unknown> = {};
  if (isRecord(data.links)) links = data.links;
  else if (data.links != null) issues.push({ path: "links", message: "must be an object" });
  const nextHref = linkHref(links.next, "links.next", issues);
  const prevHref = linkHref(links.prev, "links.prev", issues);

  if (issues.length) throw new FdxResponseError(response.status, issues);
  return { statements, nextHref, prevHref };
}

function linkHref(link: unknown, path: string, issues: FdxIssue[]): string | undefined {
  if (link == null) return undefined;
  if (!isRecord(link)) {
    issues.push({ path, message: "must be an object with an href" });
    return undefined;
  }
  const { href } = link;
  // An empty href means "none", as a missing or null one does.
  if (typeof href === "string") return href || undefined;
  if (href != null) issues.push({ path: `${path}.href`, message: "must be a string" });
  return undefined;
}
