import { integerMessage, isIntegerAtLeast } from "../internal/checks.js";
import { FdxValidationError } from "../core/error.js";
import type { Connection, ConnectionStore } from "./types.js";

/**
 * A copy, so no caller's later change reaches the store (or the other way
 * round). A row from code older than the access token has neither of its
 * fields: it reads back with none, as every store gives it.
 */
const copy = (connection: Connection): Connection => ({
  ...connection,
  accessToken: connection.accessToken ?? "",
  accessTokenExpiresAt: connection.accessTokenExpiresAt ?? 0,
  accounts: [...connection.accounts],
  lease: connection.lease ? { ...connection.lease } : undefined,
});

/**
 * A {@link ConnectionStore} in this process's memory: for tests, the sandbox
 * and single-process apps (its connections end with the process). Every
 * `compareAndSet` is atomic: it runs to its end in one turn of the event loop.
 */
export function memoryConnectionStore(): ConnectionStore {
  const rows = new Map<string, Connection>();
  return {
    async get(id) {
      const row = rows.get(id);
      return row && copy(row);
    },
    async compareAndSet(id, expectedVersion, next) {
      if (!isIntegerAtLeast(expectedVersion, 0)) throw new FdxValidationError([{ path: "expectedVersion", message: integerMessage(0) }]);
      if (next?.id !== id || next.version !== expectedVersion + 1) {
        throw new FdxValidationError([{ path: "next", message: "must carry the same id and version expectedVersion + 1" }]);
      }
      const stored = rows.get(id)?.version ?? 0;
      if (stored !== expectedVersion) return false;
      rows.set(id, copy(next));
      return true;
    },
    async delete(id) {
      rows.delete(id);
    },
    async *list() {
      // A snapshot: rows written while the caller iterates do not upset the iteration.
      for (const row of [...rows.values()]) yield copy(row);
    },
    async findByConsentId(consentId) {
      for (const row of rows.values()) if (row.consentId === consentId) return copy(row);
      return undefined;
    },
  };
}
