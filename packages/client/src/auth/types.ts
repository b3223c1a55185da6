// The shapes end-user connections are made of (docs/connections.md): what the
// authorization client returns, what a connection manager keeps, and what a
// durable store implements. Shared by `@fdxkit/client/auth` and
// `@fdxkit/postgres`, so they live apart from the code that uses them.

/** What the token endpoint gave for one end user: an id token (the bearer of their data calls) and a rotating refresh token. */
export interface TokenSet {
  /** The id token (a JWT): the bearer token of the user's data calls. */
  idToken: string;
  /** The refresh token; rotated by every refresh (the old one is spent). */
  refreshToken: string;
  /** When the id token expires (its `exp` claim), in epoch milliseconds. */
  expiresAt: number;
  /** The provider's access token (the bearer a standard OAuth resource server takes); `""` when it sent none. */
  accessToken: string;
  /** When the access token expires (from `expires_in`), in epoch milliseconds; 0 when unknown. */
  accessTokenExpiresAt: number;
  /** The account ids the user granted (the id token's `accounts` claim). */
  accounts: string[];
  /** The id token's `sub`. */
  subject: string;
  /** The data provider the user connected (the `connectorId` claim). */
  connector?: string;
  /** The consent grant's id (the `grant_id` claim). */
  consentId?: string;
  /** Every claim of the id token, as read (not signature-checked: it came straight from the token endpoint over TLS). */
  claims: Record<string, unknown>;
}

/** A connection's state: usable, in need of the user's approval again, or ended. */
export type ConnectionStatus = "active" | "reauthorization_required" | "revoked";

/** Who is refreshing a connection, and until when (informational: hosts' clocks differ). */
export interface ConnectionLease {
  /** A random id of the manager that holds it. */
  owner: string;
  /** Epoch milliseconds on the holder's clock. */
  until: number;
}

/**
 * One end user's connection to their bank, as a store keeps it: its last
 * `TokenSet`'s tokens and claims, whose tokens are empty when the
 * connection is not active. Times are epoch milliseconds.
 */
export interface Connection extends Pick<TokenSet, "idToken" | "refreshToken" | "expiresAt" | "accessToken" | "accessTokenExpiresAt" | "accounts" | "subject"> {
  /** The app's id for it (e.g. its user id). */
  id: string;
  status: ConnectionStatus;
  connector: string | undefined;
  consentId: string | undefined;
  /** The IdP that issued the tokens; a manager refuses a row of another issuer. */
  issuer: string;
  /** The OAuth client the tokens belong to; a manager refuses a row of another client. */
  clientId: string;
  createdAt: number;
  updatedAt: number;
  /** Starts at 1; every write adds 1 (compare-and-set). */
  version: number;
  lease?: ConnectionLease | undefined;
}

/** What a durable connection store implements: memory, PostgreSQL, or the app's own (Redis, DynamoDB, …). */
export interface ConnectionStore {
  /** The stored connection, or undefined. */
  get(id: string): Promise<Connection | undefined>;
  /**
   * Writes `next` (whose version is `expectedVersion + 1`) only if the stored
   * version is `expectedVersion`; 0 means "none stored", and a version above
   * 0 never creates a row. Resolves whether it wrote.
   */
  compareAndSet(id: string, expectedVersion: number, next: Connection): Promise<boolean>;
  /** Removes the row (no error when there is none). */
  delete(id: string): Promise<void>;
  /** Every stored connection. */
  list(): AsyncIterable<Connection>;
  /** Optional: without it, `list()` is scanned. */
  findByConsentId?(consentId: string): Promise<Connection | undefined>;
}
