import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors.js";
import { parseShard, shardOf } from "../../src/export/shard.js";

describe("shards", () => {
  it("reads I/N and refuses anything else, naming --shard", () => {
    expect(parseShard("1/2")).toEqual({ index: 1, count: 2 });
    expect(parseShard(" 3 / 3 ")).toEqual({ index: 3, count: 3 });
    for (const bad of ["0/2", "3/2", "1/0", "1", "a/b", "1/2/3", "-1/2", ""]) {
      expect(() => parseShard(bad)).toThrow(UsageError);
      expect(() => parseShard(bad)).toThrow(/^--shard: must be I\/N/);
    }
  });

  it("puts each account in exactly one shard, by the documented hash", () => {
    const ids = Array.from({ length: 200 }, (_, i) => `ACC-${i}`);
    for (const count of [1, 2, 3, 7]) {
      const shards = Array.from({ length: count }, (_, i) => ids.filter((id) => shardOf(id, count) === i + 1));
      expect(shards.flat().sort()).toEqual([...ids].sort());
      // Every shard gets some of 200 accounts (a hash that put everything in one would fail here).
      for (const shard of shards) expect(shard.length).toBeGreaterThan(0);
    }
    // The README's recipe: the first 16 hex digits of sha256(id), modulo N, plus one.
    for (const id of ["ACC-1001", "ACC-1002", "ACC-1003", "konto-ä"]) {
      const prefix = BigInt(`0x${createHash("sha256").update(id, "utf8").digest("hex").slice(0, 16)}`);
      expect(shardOf(id, 5)).toBe(Number(prefix % 5n) + 1);
    }
  });
});
