// The cross-process lease on a connection's refresh: taken by compare-and-set
// on the row, so one process at a time spends the rotating refresh token.
import { sleep } from "../../internal/abort.js";
import type { Connection } from "../types.js";
import type { Context } from "./context.js";

/** A lease whose row's version stays the same this much longer than leaseMs is dead. */
const LEASE_GRACE_MS = 5_000;

export interface Acquired {
  /** The row as read before the lease was taken (or when the wait ended). */
  row: Connection;
  /** The row as written with this process's lease; undefined when no lease was taken. */
  leased: Connection | undefined;
}

/** Takes the lease, waiting while another process holds a live one. `leased` is undefined when `done(row)` says the wait is over. */
export async function acquire(ctx: Context, id: string, done: (row: Connection) => boolean, expired: (row: Connection) => boolean): Promise<Acquired> {
  const { owner, rows, pollMs } = ctx;
  const { leaseMs } = ctx.settings;
  let seenVersion = -1;
  let seenAt = 0;
  for (;;) {
    const row = await rows.load(id);
    if (done(row)) return { row, leased: undefined };
    if (row.lease && row.lease.owner !== owner) {
      if (!expired(row)) return { row, leased: undefined };
      if (row.version !== seenVersion) {
        seenVersion = row.version;
        seenAt = performance.now();
      }
      // `until` is another host's clock: the lease is live until its row has not moved for leaseMs + 5 s here.
      if (performance.now() - seenAt < leaseMs + LEASE_GRACE_MS) {
        await sleep(pollMs);
        continue;
      }
    }
    const leased: Connection = { ...row, lease: { owner, until: Date.now() + leaseMs }, version: row.version + 1, updatedAt: Date.now() };
    if (await rows.write(id, row.version, leased)) return { row, leased };
  }
}

/** Clears this process's lease after a failed refresh; a store failing here leaves it to expire. */
export async function release(ctx: Context, id: string, leased: Connection): Promise<void> {
  try {
    let row: Connection | undefined = leased;
    // Stryker disable next-line OptionalChaining: a row without a lease then throws a TypeError, which the catch below ends the same way
    for (let tries = 0; row && row.lease?.owner === ctx.owner && tries < 3; tries++) {
      if (await ctx.rows.write(id, row.version, { ...row, lease: undefined, version: row.version + 1, updatedAt: Date.now() })) return;
      row = await ctx.rows.read(id);
    }
  } catch {
    // The lease expires on its own (others judge it by the version).
  }
}
