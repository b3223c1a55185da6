/** One request range: `start` and `end` both inclusive, as the service reads `startTime`/`endTime`. */
export interface Window {
  start: Date;
  end: Date;
}

/**
 * `date` moved by `years` calendar years, the day clamped to the month's last
 * (2024-02-29 + 1 year is 2025-02-28, not March 1, which would make a window
 * one day longer than a year).
 */
export function addYears(date: Date, years: number): Date {
  const moved = new Date(date.getTime());
  moved.setUTCDate(1);
  moved.setUTCFullYear(moved.getUTCFullYear() + years);
  const lastDay = new Date(Date.UTC(moved.getUTCFullYear(), moved.getUTCMonth() + 1, 0)).getUTCDate();
  moved.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return moved;
}

/**
 * Splits `from`..`to` into consecutive windows of at most one calendar year,
 * newest first (the order providers list statements in, so the most recent
 * statements of a nightly run come first).
 *
 * Neighbouring windows share their edge instant: one window's `end` is the
 * next one's `start`. The service reads both bounds inclusively, so a
 * statement dated exactly on an edge is listed by both windows, and the
 * export keeps it once (it deduplicates by statement id). Leaving a
 * millisecond's gap instead would lose such a statement at any provider that
 * reads `endTime` exclusively or rounds it to the second; sharing the edge
 * loses nothing under either reading.
 */
export function splitRange(from: Date, to: Date): Window[] {
  if (from.getTime() > to.getTime()) throw new RangeError("from is after to");
  const windows: Window[] = [];
  let start = from;
  for (;;) {
    const next = addYears(start, 1);
    if (next.getTime() >= to.getTime()) {
      windows.push({ start, end: to });
      break;
    }
    windows.push({ start, end: next });
    start = next;
  }
  return windows.reverse();
}
