// RecentSet: what the paginator remembers of an iteration (page URLs,
// statement ids), bounded however long a provider pages.
import { describe, expect, it } from "vitest";
import { RecentSet } from "../../src/internal/recent.js";

describe("RecentSet", () => {
  it("answers whether a string was added, and add says whether it was new", () => {
    const set = new RecentSet(10);
    expect(set.has("a")).toBe(false);
    expect(set.add("a")).toBe(true);
    expect(set.add("a")).toBe(false);
    expect(set.has("a")).toBe(true);
    expect(set.has("b")).toBe(false);
    // Strings of one length differing in one character, or in order, are told apart.
    expect(set.add("ab")).toBe(true);
    expect(set.add("ba")).toBe(true);
  });

  it("forgets the oldest entry past its bound, so memory stays bounded", () => {
    const set = new RecentSet(3);
    for (const key of ["k1", "k2", "k3", "k4"]) set.add(key);
    expect(set.has("k1")).toBe(false);
    expect(["k2", "k3", "k4"].map((key) => set.has(key))).toEqual([true, true, true]);
  });

  it("keeps 100 000 distinct URLs apart (no collision among them)", () => {
    const set = new RecentSet(100_000);
    let fresh = 0;
    for (let i = 0; i < 100_000; i++) if (set.add(`https://api.test/statements/v2/p/a?offset=${i}&limit=50`)) fresh++;
    expect(fresh).toBe(100_000);
  });
});
