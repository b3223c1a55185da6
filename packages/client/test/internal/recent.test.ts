// recentSet: what the paginator remembers of an iteration (page URLs,
// statement ids), bounded however long a provider pages.
import { describe, expect, it } from "vitest";
import { recentSet, seenBits } from "../../src/internal/recent.js";

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
});

describe("seenBits", () => {
  it("answers whether each string added was new", () => {
    const add = seenBits();
    expect(add("stmt-000001")).toBe(true);
    expect(add("stmt-000001")).toBe(false);
    expect(add("stmt-000002")).toBe(true);
    expect(add("")).toBe(true);
    expect(add("")).toBe(false);
  });

  it("tells 15 000 statement ids apart but for a few shared bits, and knows every one of them again", () => {
    const add = seenBits();
    const ids = Array.from({ length: 15_000 }, (_, i) => `stmt-${String(i).padStart(6, "0")}`);
    const fresh = ids.filter((id) => add(id)).length;
    // A shared bit takes a new id for a seen one: harmless where this is used (about 1 in 18 here, as the map fills).
    expect(fresh).toBeGreaterThan(14_000);
    expect(ids.some((id) => add(id))).toBe(false);
  });

  it("never takes a page of 50 new statements for one seen before, however full the map", () => {
    const add = seenBits();
    let n = 0;
    const page = () => Array.from({ length: 50 }, () => `stmt-${n++}`);
    // Up to the map's bound (16 384 ids, where it starts over): every page brings at least one new id.
    for (let p = 0; p < 327; p++) expect(page().map(add).includes(true)).toBe(true);
  });

  it("starts over once it holds `max` strings, so it never fills up", () => {
    const add = seenBits(3);
    for (const key of ["k1", "k2", "k3"]) expect(add(key)).toBe(true);
    expect(add("k3")).toBe(false);
    // The fourth new string starts a new map: what came before is new again.
    expect(add("k4")).toBe(true);
    expect(add("k1")).toBe(true);
    expect(add("k4")).toBe(false);
  });
});
