import { integerMessage, isIntegerAtLeast } from "../internal/checks.js";
import { FdxValidationError } from "../core/error.js";
import { checkFields, idCheck, isCalendarDate, type Check, type Fields } from "../internal/validation.js";

/** Parameters of `statements.list`. Only `providerId` and `accountId` are required; omitted ones are not sent. */
export interface StatementListParams {
  providerId: string;
  accountId: string;
  /**
   * Start of the range: a `Date` or an ISO 8601 string, sent as ISO 8601 UTC (`new Date(x).toISOString()`). As with
   * `Date`, a date-only string is UTC and a date-time without an offset is local time: add `Z` to be explicit.
   */
  startTime?: Date | string;
  /** End of the range, like `startTime`. Must not be before `startTime`. */
  endTime?: Date | string;
  /** Items to skip (an integer >= 0), or the opaque cursor string some providers use. */
  offset?: number | string;
  /** Maximum statements per page, an integer >= 1. */
  limit?: number;
}

/** The first request's path and query, checked and serialisable. */
export interface ListRequest {
  path: { providerId: string; accountId: string };
  query: { startTime: string | undefined; endTime: string | undefined; offset: number | string | undefined; limit: number | undefined };
}

// ISO 8601 as the service uses it: a date, optionally a time, optionally an offset.
const ISO_8601 = /^(\d{4}-\d{2}-\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** A `Date`, or an ISO 8601 string naming a real day, as a valid `Date`; undefined for anything else. */
function toInstant(value: unknown): Date | undefined {
  if (typeof value === "string") {
    const match = ISO_8601.exec(value);
    // Date parses "2025-02-30" as March 2 and "March 5" as a date: neither is what the caller meant.
    if (!match || !isCalendarDate(match[1]!)) return undefined;
  } else if (!(value instanceof Date)) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const time: Check = (v) => (toInstant(v) ? undefined : "must be a real date (Date or ISO 8601 string)");

const fields: Fields = {
  providerId: idCheck(),
  accountId: idCheck(),
  "startTime?": time,
  "endTime?": time,
  "offset?": (v) => (isIntegerAtLeast(v, 0) || (typeof v === "string" && v !== "") ? undefined : "must be an integer >= 0 or a non-empty cursor string"),
  "limit?": (v) => (isIntegerAtLeast(v, 1) ? undefined : integerMessage(1)),
};

/** Checks `statements.list` parameters; throws `FdxValidationError` listing every bad one. */
export function toListRequest(params: StatementListParams): ListRequest {
  const { data, issues } = checkFields(params, fields);
  // Each field passed its check above (or is absent where optional).
  const { providerId, accountId, startTime, endTime } = data as Pick<StatementListParams, "providerId" | "accountId" | "startTime" | "endTime">;
  const { offset, limit } = data as Pick<StatementListParams, "offset" | "limit">;
  const start = toInstant(startTime);
  const end = toInstant(endTime);
  if (start && end && start > end) issues.push({ path: "startTime", message: "must not be after endTime" });
  if (issues.length) throw new FdxValidationError(issues);
  return { path: { providerId, accountId }, query: { startTime: start?.toISOString(), endTime: end?.toISOString(), offset, limit } };
}
