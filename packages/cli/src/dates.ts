import { UsageError } from "./errors.js";

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `--from`/`--to` values: a date-only `YYYY-MM-DD` covers the whole UTC day
 * (`--from` its start, `--to` its last millisecond), so `--to 2025-06-30`
 * includes statements of June 30. Other values go to the SDK as given (ISO
 * 8601 date-times), which rejects anything it cannot read.
 */
export function rangeStart(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return DATE_ONLY.test(value) ? `${checkDate("--from", value)}T00:00:00.000Z` : value;
}

export function rangeEnd(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return DATE_ONLY.test(value) ? `${checkDate("--to", value)}T23:59:59.999Z` : value;
}

function checkDate(flag: string, value: string): string {
  const date = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
    throw new UsageError(`${flag} ${JSON.stringify(value)} is not a calendar date (YYYY-MM-DD)`);
  }
  return value;
}

/** A statement date for people: `2025-06-30` for a midnight-UTC date-time, else as sent. */
export function displayDate(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d{4}-\d{2}-\d{2})(?:T00:00(?::00(?:\.0+)?)?(?:Z|[+-]00:?00)?)?$/.exec(value);
  return match ? match[1] : value;
}
