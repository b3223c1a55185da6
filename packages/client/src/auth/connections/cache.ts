// What a process keeps of connections in memory: the rows it last read or
// wrote, least recently used out and re-read after a time to live, and the
// storm bounds that hold back repeated refreshes of one connection.
import type { Connection } from "../types.js";

/** At most one refresh per connection per this long from rejections, and between failed proactive refreshes. */
export const STORM_MS = 30_000;

interface Entry {
  row: Connection;
  /** performance.now() when read or written. */
  readAt: number;
}

export interface Storms {
  /** performance.now() of the last refresh caused by a rejection of an unexpired token. */
  rejectedAt?: number;
  /** performance.now() of the last failed proactive refresh. */
  proactiveFailedAt?: number;
}

export interface Cache {
  /** The row in memory if read within the time to live, else undefined. */
  fresh(id: string): Connection | undefined;
  /** Keeps an active row (unless a newer one of the same connection is already kept). */
  remember(row: Connection): void;
  forget(id: string): void;
  /** The storm bounds of a connection, made on first use. */
  stormOf(id: string): Storms;
}

export function createCache(ttlMs: number, size: number): Cache {
  const rows = new Map<string, Entry>();
  const storms = new Map<string, Storms>();
  return {
    fresh(id) {
      const entry = rows.get(id);
      if (!entry) return undefined;
      if (performance.now() - entry.readAt >= ttlMs) {
        rows.delete(id);
        return undefined;
      }
      // Least recently used goes first: a hit moves to the end.
      rows.delete(id);
      rows.set(id, entry);
      return entry.row;
    },
    remember(row) {
      const had = rows.get(row.id)?.row;
      // A read that began before this process stored a newer pair of the same connection must not put the older one back.
      // Stryker disable next-line EqualityOperator: the same version of the same row holds the same values
      if (had && had.createdAt === row.createdAt && had.version > row.version) return;
      rows.delete(row.id);
      // Stryker disable next-line ConditionalExpression: every caller passes an active row (load, complete and persist write or keep only active ones)
      if (row.status !== "active") return;
      rows.set(row.id, { row, readAt: performance.now() });
      if (rows.size > size) rows.delete(rows.keys().next().value!);
    },
    forget(id) {
      rows.delete(id);
    },
    stormOf(id) {
      let s = storms.get(id);
      if (!s) {
        s = {};
        storms.set(id, s);
        if (storms.size > size) storms.delete(storms.keys().next().value!);
      }
      return s;
    },
  };
}
