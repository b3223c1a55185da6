import { decodeCursor, encodeCursor, type PageQuery } from "../cursor.js";
import { accountNotFound, invalidDateRange, invalidInput, json, notAcceptable, statementNotFound } from "../errors.js";
import { renderStatementPdf } from "../pdf.js";
import type { Route, RouteContext } from "../router.js";
import { SEED_DATA, toApiStatement, type SeedStatement } from "../seed.js";
import type { AppState } from "../state.js";
import type { StatementList } from "../types.js";

/** Page size when the first call sends no `limit`. */
export const DEFAULT_LIMIT = 25;
/** Larger `limit` values are lowered to this. */
export const MAX_LIMIT = 100;
const PDF = "application/pdf";

const ISO_8601 = /^(\d{4}-\d{2}-\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Epoch ms of an ISO 8601 date or date-time (UTC when no offset is given), or `undefined`. */
function parseTime(value: string): number | undefined {
  const match = ISO_8601.exec(value);
  if (!match) return undefined;
  const day = match[1] as string;
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  const check = new Date(Date.UTC(y, m - 1, d));
  if (check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d) return undefined;
  const time = Date.parse(value.length > 10 && !match[2] ? `${value}Z` : value);
  return Number.isNaN(time) ? undefined : time;
}

/** The earliest start a range ending at `end` may have: the same instant two calendar years before. */
function twoYearsBefore(end: number): number {
  const date = new Date(end);
  date.setUTCFullYear(date.getUTCFullYear() - 2);
  return date.getTime();
}

/** The first call's query; a Response when it is invalid. */
function firstPageQuery(params: URLSearchParams, providerId: string, accountId: string): PageQuery | Response {
  const startText = params.get("startTime");
  const endText = params.get("endTime");
  const start = startText === null ? null : parseTime(startText);
  const end = endText === null ? null : parseTime(endText);
  if (start === undefined) return invalidDateRange("startTime is not an ISO 8601 date-time");
  if (end === undefined) return invalidDateRange("endTime is not an ISO 8601 date-time");
  if (start !== null && end !== null) {
    if (start > end) return invalidDateRange("startTime is after endTime");
    if (start < twoYearsBefore(end)) return invalidDateRange("The range is longer than two years");
  }

  const offsetText = params.get("offset");
  const limitText = params.get("limit");
  if (offsetText !== null && !/^\d{1,9}$/.test(offsetText)) return invalidInput("offset must be a non-negative integer");
  if (limitText !== null && (!/^\d{1,9}$/.test(limitText) || Number(limitText) < 1)) return invalidInput("limit must be a positive integer");
  return {
    providerId,
    accountId,
    start,
    end,
    offset: offsetText === null ? 0 : Number(offsetText),
    limit: Math.min(limitText === null ? DEFAULT_LIMIT : Number(limitText), MAX_LIMIT),
  };
}

/** Whether the `Accept` header admits PDF (a missing or empty one does). */
function acceptsPdf(accept: string | null): boolean {
  if (accept === null || accept.trim() === "") return true;
  return accept.split(",").some((part) => {
    const [range = "", ...parameters] = part.split(";").map((s) => s.trim().toLowerCase());
    const q = parameters.find((p) => p.startsWith("q="));
    if (q !== undefined && Number(q.slice(2)) === 0) return false;
    return range === PDF || range === "application/*" || range === "*/*";
  });
}

export function statementRoutes(state: AppState): Route[] {
  const base = (version: string, providerId: string, accountId: string) =>
    `${state.productsPath}/statements/${encodeURIComponent(version)}/${encodeURIComponent(providerId)}/${encodeURIComponent(accountId)}`;

  function accountStatements(providerId: string, accountId: string): readonly SeedStatement[] | Response {
    if (providerId !== SEED_DATA.providerId) return accountNotFound(`Unknown provider ${JSON.stringify(providerId)}`);
    return SEED_DATA.statements.get(accountId) ?? accountNotFound(`Unknown account ${JSON.stringify(accountId)}`);
  }

  function list({ url, params }: RouteContext): Response {
    const { version = "", providerId = "", accountId = "" } = params;
    const statements = accountStatements(providerId, accountId);
    if (statements instanceof Response) return statements;

    // A cursor carries the whole query: other parameters beside it are ignored.
    const cursor = url.searchParams.get("cursor");
    let query: PageQuery | Response;
    if (cursor === null) query = firstPageQuery(url.searchParams, providerId, accountId);
    else query = decodeCursor(cursor) ?? invalidInput("Invalid cursor");
    if (query instanceof Response) return query;
    if (query.providerId !== providerId || query.accountId !== accountId) return invalidInput("The cursor belongs to another account");

    const { start, end, offset, limit } = query;
    const inRange = statements.filter((s) => (start === null || s.time >= start) && (end === null || s.time <= end));
    const page = inRange.slice(offset, offset + limit);
    const href = (nextOffset: number) => `${base(version, providerId, accountId)}?cursor=${encodeCursor({ ...query, offset: nextOffset })}`;

    const links: NonNullable<StatementList["links"]> = {};
    if (offset > 0) links.prev = { href: href(Math.max(0, offset - limit)) };
    if (offset + limit < inRange.length) links.next = { href: href(offset + limit) };
    const body: StatementList = {
      links,
      statements: page.map((s) => toApiStatement(s, `${base(version, providerId, accountId)}/${encodeURIComponent(s.statementId)}`)),
    };
    return json(200, body);
  }

  async function download({ request, params }: RouteContext): Promise<Response> {
    const { providerId = "", accountId = "", statementId = "" } = params;
    const statements = accountStatements(providerId, accountId);
    if (statements instanceof Response) return statements;
    const statement = statements.find((s) => s.statementId === statementId);
    if (!statement) return statementNotFound(`Unknown statement ${JSON.stringify(statementId)}`);
    if (statement.status !== "AVAILABLE") {
      return json(404, { code: "1108", message: "Statement not available", debugMessage: `The statement is ${statement.status}` });
    }
    if (!acceptsPdf(request.headers.get("Accept"))) return notAcceptable([PDF]);

    const key = `${accountId}\n${statementId}`;
    let bytes = state.pdfCache.get(key);
    if (!bytes) {
      bytes = renderStatementPdf(providerId, statement);
      state.pdfCache.set(key, bytes);
      bytes.catch(() => state.pdfCache.delete(key)); // a failed render is retried next time
    }
    const pdf = await bytes;
    const fileName = `statement-${statement.statementDate.slice(0, 7)}.pdf`;
    return new Response(pdf.slice(), {
      status: 200,
      headers: {
        "Content-Type": PDF,
        "Content-Length": String(pdf.byteLength),
        "Content-Disposition": `inline; filename="${fileName}"`,
      },
    });
  }

  // Allowed versions are not shown; the service's examples use v2.
  return [
    { pattern: ["statements", ":version", ":providerId", ":accountId"], versions: ["v2"], handlers: { GET: list } },
    { pattern: ["statements", ":version", ":providerId", ":accountId", ":statementId"], versions: ["v2"], handlers: { GET: download } },
  ];
}
