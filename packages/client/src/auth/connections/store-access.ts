// Every read and write of the store goes through here: a store's failure
// becomes a typed error that quotes nothing of the row, and a row of another
// issuer or client, or one still sealed, is refused before it is used.
import { FdxError } from "../../core/error.js";
import { SEALED_PREFIX } from "../encrypt-store.js";
import { FdxConnectionStoreError, FdxReauthorizationRequiredError } from "../errors.js";
import type { Connection, ConnectionStatus } from "../types.js";
import type { Cache } from "./cache.js";
import type { Settings } from "./options.js";

export interface StoreAccess {
  /** Runs a store call, its failure turned into a typed store error. */
  call<T>(op: string, id: string | undefined, run: () => Promise<T>): Promise<T>;
  read(id: string): Promise<Connection | undefined>;
  write(id: string, expected: number, next: Connection): Promise<boolean>;
  /** Whether a row belongs to this issuer and client. */
  isOwn(row: Connection): Promise<boolean>;
  /** The row, if ours and readable; else the typed error. */
  checkOwn(row: Connection): Promise<Connection>;
  /** The stored connection, active and ours, else the typed error. */
  load(id: string): Promise<Connection>;
  /**
   * Ends `current` with `status`: its tokens erased and its lease dropped, written only if no other write came
   * first (then undefined, for the caller to read the row again). The cache forgets it and the app's hook hears.
   */
  end(id: string, current: Connection, status: Exclude<ConnectionStatus, "active">): Promise<Connection | undefined>;
  /** Tells the app's hook of a stored status change. */
  changed(row: Connection, previous: ConnectionStatus | undefined): Promise<void>;
  /** Revokes a refresh token no row holds, ignoring failure. */
  revokeQuietly(refreshToken: string): Promise<void>;
}

export function createStoreAccess(settings: Settings, cache: Cache, tokenTimeoutMs: number): StoreAccess {
  const { auth, store, onStatusChange: hook } = settings;
  const call = async <T>(op: string, id: string | undefined, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw storeError(op, id, error);
    }
  };
  const read = (id: string) => call("get", id, () => store.get(id));
  const isOwn = async (row: Connection) => row.clientId === auth.clientId && row.issuer === (await auth.issuer());
  const checkOwn = async (row: Connection) => {
    if (!(await isOwn(row))) {
      throw new FdxConnectionStoreError(`Connection ${JSON.stringify(row.id)} belongs to another issuer or client: not used`, {
        connectionId: row.id,
        reason: "foreign_connection",
      });
    }
    // Sealed tokens read without encryptConnectionStore (a key left out of one process's set-up): sent to the
    // IdP, the ciphertext would be refused and the connection ended as if the user had revoked it.
    if (row.refreshToken.startsWith(SEALED_PREFIX) || row.idToken.startsWith(SEALED_PREFIX) || row.accessToken.startsWith(SEALED_PREFIX)) {
      throw new FdxConnectionStoreError(
        `Connection ${JSON.stringify(row.id)} holds encrypted tokens: read the store through encryptConnectionStore with its keys`,
        {
          connectionId: row.id,
          reason: "undecryptable",
        },
      );
    }
    return row;
  };
  const write = (id: string, expected: number, next: Connection) => call("compareAndSet", id, () => store.compareAndSet(id, expected, next));
  const changed = async (row: Connection, previous: ConnectionStatus | undefined) => {
    if (!hook || row.status === previous) return;
    try {
      await hook({ ...row, accounts: [...row.accounts] }, previous);
    } catch {
      // The change is stored; the app's hook failing does not undo it.
    }
  };
  return {
    call,
    read,
    write,
    isOwn,
    checkOwn,
    async load(id) {
      const row = await read(id);
      if (!row) throw new FdxReauthorizationRequiredError(id, "not_found");
      await checkOwn(row);
      if (row.status !== "active") throw new FdxReauthorizationRequiredError(id, row.status);
      cache.remember(row);
      return row;
    },
    async end(id, current, status) {
      const next: Connection = {
        ...current,
        status,
        idToken: "",
        refreshToken: "",
        accessToken: "",
        lease: undefined,
        version: current.version + 1,
        updatedAt: Date.now(),
      };
      if (!(await write(id, current.version, next))) return undefined;
      cache.forget(id);
      await changed(next, current.status);
      return next;
    },
    changed,
    async revokeQuietly(refreshToken) {
      // Stryker disable next-line ConditionalExpression: no caller passes an empty token (each checks first), and createAuthClient's revoke refuses one before any request
      if (!refreshToken) return;
      try {
        await auth.revoke(refreshToken, { timeoutMs: tokenTimeoutMs });
      } catch {
        // Best effort: the token is not stored anywhere, and the IdP expires it.
      }
    },
  };
}

/** A store's error, without what it may quote of the row (PostgreSQL's `detail` repeats the values). */
function storeError(op: string, id: string | undefined, error: unknown): FdxError {
  if (error instanceof FdxError) return error;
  const name = error instanceof Error ? error.name : typeof error;
  const code = typeof (error as { code?: unknown } | null)?.code === "string" ? (error as { code: string }).code : undefined;
  const cause = new Error(`${name}${code ? ` ${code}` : ""}`);
  cause.name = name;
  if (code) Object.assign(cause, { code });
  const what = id === undefined ? "" : ` for connection ${JSON.stringify(id)}`;
  return new FdxConnectionStoreError(`The connection store's ${op} failed${what} (${cause.message})`, { connectionId: id, reason: "store_error", cause });
}
