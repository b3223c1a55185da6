import { createHash } from "node:crypto";
import { UsageError } from "../errors.js";

/** `--shard I/N`: this process exports shard `index` (1-based) of `count`. */
export interface Shard {
  index: number;
  count: number;
}

/** Reads `--shard I/N` (1 <= I <= N). */
export function parseShard(value: string): Shard {
  const match = /^\s*(\d{1,6})\s*\/\s*(\d{1,6})\s*$/.exec(value);
  const index = match ? Number(match[1]) : NaN;
  const count = match ? Number(match[2]) : NaN;
  if (!match || count < 1 || index < 1 || index > count) {
    throw new UsageError(`--shard: must be I/N with 1 <= I <= N, e.g. 1/4 (got ${JSON.stringify(value)})`);
  }
  return { index, count };
}

/**
 * The shard (1-based) an account falls to among `count`: the SHA-256 of the
 * account id's UTF-8 bytes, its first 8 bytes read as an unsigned big-endian
 * integer, modulo `count`, plus one. Stable across runs, machines and
 * versions (it depends on nothing but the id), so N processes started with
 * `--shard 1/N` … `--shard N/N` split any account list between them with no
 * coordination, each account to exactly one. In a shell:
 * `printf %s "$ACCOUNT" | sha256sum | cut -c1-16` gives the integer in hex.
 */
export function shardOf(accountId: string, count: number): number {
  const prefix = createHash("sha256").update(accountId, "utf8").digest().readBigUInt64BE(0);
  return Number(prefix % BigInt(count)) + 1;
}
