// recentSet: what the paginator remembers of an iteration (page URLs,
// statement ids), bounded however long a provider pages.
import { describe, expect, it } from "vitest";
import { recentSet } from "../../src/internal/recent.js";

describe("recentSet", () => {
  it("answers whether each string added was new", () => {
    const add = recentSet(10);
    expect(add("a")).toBe(true);
    expect(add("a")).toBe(false);
    // Strings of one length differing in one character, or in order, are told apart.
    expect(add("ab")).toBe(true);
    expect(add("ba")).toBe(true);
    expect(add("b")).toBe(true);
  });

  it("forgets the oldest entry past its bound, so memory stays bounded", () => {
    const add = recentSet(3);
    for (const key of ["k1", "k2", "k3", "k4"]) add(key);
    // k1 was forgotten (new again, which pushes k2 out); k3 and k4 are still known.
    expect(add("k1")).toBe(true);
    expect(add("k3")).toBe(false);
    expect(add("k4")).toBe(false);
    expect(add("k2")).toBe(true);
  });

  it("keeps 100 000 distinct URLs apart (no collision among them)", () => {
    const add = recentSet(100_000);
    let fresh = 0;
    for (let i = 0; i < 100_000; i++) if (add(`https://api.test/statements/v2/p/a?offset=${i}&limit=50`)) fresh++;
    expect(fresh).toBe(100_000);
  });

  it("narrow, still tells strings apart and stays bounded", () => {
    const add = recentSet(3, true);
    expect(add("a")).toBe(true);
    expect(add("a")).toBe(false);
    expect(add("b")).toBe(true);
    expect(add("c")).toBe(true);
    add("d");
    // Past its bound of 3, "a" (the oldest) was forgotten.
    expect(add("a")).toBe(true);
    expect(add("c")).toBe(false);
  });
});
