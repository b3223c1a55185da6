import { describe, expect, it } from "vitest";
import { addYears, splitRange } from "../../src/export/windows.js";

const d = (iso: string) => new Date(iso);
const iso = (w: { start: Date; end: Date }) => [w.start.toISOString(), w.end.toISOString()];

describe("splitRange", () => {
  it("keeps a range of a year or less whole", () => {
    expect(splitRange(d("2025-01-01T00:00:00Z"), d("2025-12-31T23:59:59.999Z")).map(iso)).toEqual([["2025-01-01T00:00:00.000Z", "2025-12-31T23:59:59.999Z"]]);
    expect(splitRange(d("2025-01-01T00:00:00Z"), d("2026-01-01T00:00:00Z")).map(iso)).toEqual([["2025-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"]]);
    const instant = d("2025-05-05T05:05:05Z");
    expect(splitRange(instant, instant).map(iso)).toEqual([[instant.toISOString(), instant.toISOString()]]);
  });

  it("splits five years (and a day) into consecutive windows of at most a year, newest first, each starting where the older one ends", () => {
    const windows = splitRange(d("2021-10-31T00:00:00Z"), d("2026-10-31T23:59:59.999Z"));
    expect(windows.map(iso)).toEqual([
      ["2026-10-31T00:00:00.000Z", "2026-10-31T23:59:59.999Z"],
      ["2025-10-31T00:00:00.000Z", "2026-10-31T00:00:00.000Z"],
      ["2024-10-31T00:00:00.000Z", "2025-10-31T00:00:00.000Z"],
      ["2023-10-31T00:00:00.000Z", "2024-10-31T00:00:00.000Z"],
      ["2022-10-31T00:00:00.000Z", "2023-10-31T00:00:00.000Z"],
      ["2021-10-31T00:00:00.000Z", "2022-10-31T00:00:00.000Z"],
    ]);
    // Contiguous: no instant of the range falls between two windows.
    for (let i = 1; i < windows.length; i++) expect(windows[i]!.end.getTime()).toBe(windows[i - 1]!.start.getTime());
  });

  it("never makes a window longer than a calendar year, even from February 29", () => {
    expect(addYears(d("2024-02-29T12:00:00Z"), 1).toISOString()).toBe("2025-02-28T12:00:00.000Z");
    expect(addYears(d("2026-11-23T19:08:35.123Z"), -2).toISOString()).toBe("2024-11-23T19:08:35.123Z");
    const windows = splitRange(d("2024-02-29T00:00:00Z"), d("2027-01-01T00:00:00Z"));
    for (const w of windows) expect(w.end.getTime()).toBeLessThanOrEqual(addYears(w.start, 1).getTime());
    expect(windows.at(-1)!.start.toISOString()).toBe("2024-02-29T00:00:00.000Z");
    expect(windows[0]!.end.toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });

  it("refuses a range that ends before it starts", () => {
    expect(() => splitRange(d("2025-02-01T00:00:00Z"), d("2025-01-01T00:00:00Z"))).toThrow(RangeError);
  });
});
