import { decodeCursor, encodeCursor, type PageQuery } from "../cursor.js";
import {
  accountNotFound,
  contentTypeNotSupported,
  invalidDate,
  invalidDateRange,
  json,
  noStatements,
  statementInvalidInput,
  statementNotFound,
  statementProcessing,
} from "../errors.js";
import { renderStatementPdf } from "../pdf.js";
import { ACTOR_TYPE, ACTOR_TYPES } from "../request-log.js";
import type { Route, RouteContext } from "../router.js";
import { SEED_DATA, toApiStatement, type SeedStatement } from "../seed.js";
import type { AppState } from "../state.js";
import type { StatementList } from "../types.js";

/** Page size when the first call sends no `limit` (the real service's documented default). */
export const DEFAULT_LIMIT = 50;
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
  // An offset may be one of this mock's opaque cursors (the real service's
  // offsets are opaque strings); like a `cursor`, it carries the whole query.
  const offsetText = params.get("offset");
  if (offsetText !== null && !/^\d{1,9}$/.test(offsetText)) {
    return decodeCursor(offsetText) ?? statementInvalidInput("offset must be a non-negative integer or a cursor of this sandbox");
  }

  const startText = params.get("startTime");
  const endText = params.get("endTime");
  const start = startText === null ? null : parseTime(startText);
  const end = endText === null ? null : parseTime(endText);
  if (start === undefined) return invalidDate("startTime is not an ISO 8601 date-time");
  if (end === undefined) return invalidDate("endTime is not an ISO 8601 date-time");
  if (start !== null && end !== null) {
    if (start > end) return invalidDateRange("startTime is after endTime");
    if (start < twoYearsBefore(end)) return invalidDateRange("The range is longer than two years");
  }

  const limitText = params.get("limit");
  if (limitText !== null && (!/^\d{1,9}$/.test(limitText) || Number(limitText) < 1)) return statementInvalidInput("limit must be a positive integer");
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
  const { pagination, prevLinks, documents, requireActorType } = state.variations;
  const base = (version: string, providerId: string, accountId: string) =>
    `${state.productsPath}/statements/${encodeURIComponent(version)}/${encodeURIComponent(providerId)}/${encodeURIComponent(accountId)}`;

  function accountStatements(providerId: string, accountId: string): readonly SeedStatement[] | Response {
    if (providerId !== SEED_DATA.providerId) return accountNotFound(`Unknown provider ${JSON.stringify(providerId)}`);
    return SEED_DATA.statements.get(accountId) ?? accountNotFound(`Unknown account ${JSON.stringify(accountId)}`);
  }

  // An end user's token reaches only the accounts of its consent; others are as unknown to it (FDX 701).
  function outsideGrant(grant: RouteContext["grant"], accountId: string): Response | undefined {
    if (grant && !grant.accounts.includes(accountId)) return accountNotFound(`Account ${JSON.stringify(accountId)} is not in the user's consent`);
    return undefined;
  }

  // A provider that requires FDX-API-Actor-Type refuses a call without a value FDX defines, before anything else.
  function actorMissing(request: Request, providerId: string): Response | undefined {
    if (!requireActorType.has(providerId)) return undefined;
    const value = request.headers.get(ACTOR_TYPE);
    if (value !== null && ACTOR_TYPES.includes(value)) return undefined;
    const why = value === null ? "is required" : `must be USER or BATCH, not ${JSON.stringify(value)}`;
    return statementInvalidInput(`${ACTOR_TYPE} ${why} by provider ${JSON.stringify(providerId)}`);
  }

  function list({ request, url, params, grant }: RouteContext): Response {
    const { version = "", providerId = "", accountId = "" } = params;
    const refused = actorMissing(request, providerId) ?? outsideGrant(grant, accountId);
    if (refused) return refused;
    const statements = accountStatements(providerId, accountId);
    if (statements instanceof Response) return statements;
    if (statements.length === 0) return noStatements(`Account ${JSON.stringify(accountId)} has no statements`);

    // A cursor carries the whole query: other parameters beside it are ignored.
    const cursor = url.searchParams.get("cursor");
    let query: PageQuery | Response;
    if (cursor === null) query = firstPageQuery(url.searchParams, providerId, accountId);
    else query = decodeCursor(cursor) ?? statementInvalidInput("Invalid cursor");
    if (query instanceof Response) return query;
    if (query.providerId !== providerId || query.accountId !== accountId) return statementInvalidInput("The cursor belongs to another account");

    const { start, end, offset, limit } = query;
    const inRange = statements.filter((s) => (start === null || s.time >= start) && (end === null || s.time <= end));
    const page = inRange.slice(offset, offset + limit);
    const hasNext = offset + limit < inRange.length;
    const body: StatementList = {
      statements: page.map((s) => toApiStatement(s, `${base(version, providerId, accountId)}/${encodeURIComponent(s.statementId)}`)),
    };
    if (pagination === "page") {
      // FDX page object: the client asks again with the first URL and offset=nextOffset.
      body.page = { totalElements: inRange.length };
      if (hasNext) body.page.nextOffset = encodeCursor({ ...query, offset: offset + limit });
      if (prevLinks && offset > 0) body.page.prevOffset = encodeCursor({ ...query, offset: Math.max(0, offset - limit) });
    } else {
      const href = (at: number) => `${base(version, providerId, accountId)}?cursor=${encodeCursor({ ...query, offset: at })}`;
      const links: NonNullable<StatementList["links"]> = {};
      if (prevLinks && offset > 0) links.prev = { href: href(Math.max(0, offset - limit)) };
      if (hasNext) links.next = { href: href(offset + limit) };
      body.links = links;
    }
    return json(200, body);
  }

  async function download({ request, params, grant }: RouteContext): Promise<Response> {
    const { providerId = "", accountId = "", statementId = "" } = params;
    const refused = actorMissing(request, providerId) ?? outsideGrant(grant, accountId);
    if (refused) return refused;
    const statements = accountStatements(providerId, accountId);
    if (statements instanceof Response) return statements;
    const statement = statements.find((s) => s.statementId === statementId);
    if (!statement) return statementNotFound(`Unknown statement ${JSON.stringify(statementId)}`);
    if (statement.status === "PROCESSING") return statementProcessing();
    if (statement.status !== "AVAILABLE") {
      return statementNotFound(`The statement is ${statement.status}: no document was produced`);
    }
    if (!acceptsPdf(request.headers.get("Accept"))) return contentTypeNotSupported([PDF]);
    if (documents === "redirect" && state.documents) {
      const location = await state.documents.sign({ providerId, accountId, statementId });
      return new Response(null, { status: 302, headers: { Location: location } });
    }
    return statementDocument(state, providerId, statement);
  }

  // Allowed versions are not shown; the service's examples use v2.
  return [
    { pattern: ["statements", ":version", ":providerId", ":accountId"], versions: ["v2"], handlers: { GET: list }, userTokens: true },
    { pattern: ["statements", ":version", ":providerId", ":accountId", ":statementId"], versions: ["v2"], handlers: { GET: download }, userTokens: true },
  ];
}

/** The PDF of an available statement, rendered once per instance. */
export async function statementDocument(state: AppState, providerId: string, statement: SeedStatement): Promise<Response> {
  const key = `${statement.accountId}\n${statement.statementId}`;
  let bytes = state.pdfCache.get(key);
  if (!bytes) {
    bytes = renderStatementPdf(providerId, statement);
    state.pdfCache.set(key, bytes);
    bytes.catch(() => state.pdfCache.delete(key)); // a failed render is retried next time
  }
  const pdf = await bytes;
  const fileName = `statement-${statement.statementDate.slice(0, 10)}.pdf`;
  return new Response(pdf.slice(), {
    status: 200,
    headers: {
      "Content-Type": PDF,
      "Content-Length": String(pdf.byteLength),
      "Content-Disposition": `inline; filename="${fileName}"`,
    },
  });
}

/** The documents origin of `documents: "redirect"`: signed single-statement URLs, no bearer token. */
export async function serveDocument(state: AppState, request: Request): Promise<Response> {
  const ref = await (state.documents as NonNullable<AppState["documents"]>).verify(request);
  if (ref instanceof Response) return ref;
  const statement = SEED_DATA.statements.get(ref.accountId)?.find((s) => s.statementId === ref.statementId);
  // Only URLs this instance signed get here, and it signs available statements only.
  if (!statement) return new Response(null, { status: 404 });
  return statementDocument(state, ref.providerId, statement);
}
