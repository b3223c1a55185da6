// TODO(lead, at merge): replace this file's declarations with
// `export type { Connection, ConnectionLease, ConnectionStatus, ConnectionStore } from "@fdxkit/client/auth";`
// once the client's ./auth entry has landed. Until then they are copied,
// type-only and identical, from packages/client/src/auth/types.ts, so a store
// made here is assignable to the client's `ConnectionStore` structurally.

/** A connection's state: usable, in need of the user's approval again, or ended. */
export type ConnectionStatus = "active" | "reauthorization_required" | "revoked";

/** Who is refreshing a connection, and until when (informational: hosts' clocks differ). */
export interface ConnectionLease {
  /** A random id of the manager that holds it. */
  owner: string;
  /** Epoch milliseconds on the holder's clock. */
  until: number;
}

/** One end user's connection to their bank, as a store keeps it. Times are epoch milliseconds. */
export interface Connection {
  /** The app's id for it (e.g. its user id). */
  id: string;
  /** Whether the connection can be used. */
  status: ConnectionStatus;
  /** Empty when the connection is not active. */
  idToken: string;
  /** Empty when the connection is not active. */
  refreshToken: string;
  /** When the id token expires. */
  expiresAt: number;
  /** The account ids the user granted. */
  accounts: string[];
  /** The id token's `sub`. */
  subject: string;
  /** The data provider the user connected. */
  connector: string | undefined;
  /** The consent grant's id. */
  consentId: string | undefined;
  /** The IdP that issued the tokens; a manager refuses a row of another issuer. */
  issuer: string;
  /** The OAuth client the tokens belong to; a manager refuses a row of another client. */
  clientId: string;
  /** When the connection was authorized. */
  createdAt: number;
  /** When the row was last written. */
  updatedAt: number;
  /** Starts at 1; every write adds 1 (compare-and-set). */
  version: number;
  /** Set while a manager refreshes the tokens. */
  lease?: ConnectionLease | undefined;
}

/** What a durable connection store implements: memory, PostgreSQL, or the app's own (Redis, DynamoDB, …). */
export interface ConnectionStore {
  /** The connection stored under `id`, if any. */
  get(id: string): Promise<Connection | undefined>;
  /**
   * Writes `next` (whose version is `expectedVersion + 1`) only if the stored
   * version is `expectedVersion`; 0 means "none stored", and a version above
   * 0 never creates a row. Resolves whether it wrote.
   */
  compareAndSet(id: string, expectedVersion: number, next: Connection): Promise<boolean>;
  /** Removes the connection (no error when there is none). */
  delete(id: string): Promise<void>;
  /** Every stored connection. */
  list(): AsyncIterable<Connection>;
  /** Optional: without it, `list()` is scanned. */
  findByConsentId?(consentId: string): Promise<Connection | undefined>;
}
