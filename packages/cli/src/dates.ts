import { UsageError } from "./errors.js";

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?$/i;

function isCalendarDate(day: string): boolean {
  const date = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === day;
}

/**
 * A `--from`/`--to` value as an instant. A date-only `YYYY-MM-DD` covers the
 * whole UTC day: `--from` its first millisecond, `--to` its last (so
 * `--to 2025-06-30` includes statements of June 30). A date-time is ISO 8601,
 * UTC when it names no offset. Anything else is a usage error naming the flag.
 */
export function parseFlagDate(flag: "--from" | "--to", value: string): Date {
  const text = value.trim();
  const dateOnly = DATE_ONLY.exec(text);
  if (dateOnly && isCalendarDate(text)) return new Date(`${text}T${flag === "--to" ? "23:59:59.999" : "00:00:00.000"}Z`);
  const dateTime = DATE_TIME.exec(text);
  if (dateTime && isCalendarDate(dateTime[1]!)) {
    const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(text);
    const time = Date.parse(hasZone ? text : `${text}Z`);
    if (!Number.isNaN(time)) return new Date(time);
  }
  throw new UsageError(`${flag}: must be a date (YYYY-MM-DD) or an ISO 8601 date-time such as 2025-06-30T00:00:00Z (got ${JSON.stringify(value)})`);
}

/** `--from`/`--to` of a command, both optional; `--from` after `--to` is a usage error. */
export function flagRange(from: string | undefined, to: string | undefined): { start: Date | undefined; end: Date | undefined } {
  const start = from === undefined ? undefined : parseFlagDate("--from", from);
  const end = to === undefined ? undefined : parseFlagDate("--to", to);
  if (start && end && start.getTime() > end.getTime()) throw new UsageError(`--from: must not be after --to (${start.toISOString()} > ${end.toISOString()})`);
  return { start, end };
}

/** A statement date for people: `2025-06-30` for a midnight-UTC date-time, else as sent. */
export function displayDate(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d{4}-\d{2}-\d{2})(?:T00:00(?::00(?:\.0+)?)?(?:Z|[+-]00:?00)?)?$/.exec(value);
  return match ? match[1] : value;
}

/**
 * A stored instant (epoch milliseconds) as ISO 8601, or null when it is no
 * date at all: a row in a store is data that another program or a hostile
 * identity provider may have written, and `new Date(1e303).toISOString()`
 * throws instead of printing.
 */
export function isoInstant(ms: unknown): string | null {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return null;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
