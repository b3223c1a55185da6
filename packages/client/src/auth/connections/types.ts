// The public shapes of the connection manager, apart from its wiring so that each step can name them.
import type { TokenContext } from "../../core/options.js";
import type { CallbackChecks, AuthClient } from "../auth-client.js";
import type { ApplyNotificationOptions, NotificationResult } from "../notification.js";
import type { Connection, ConnectionStatus, ConnectionStore, TokenSet } from "../types.js";

/** Options of `createConnections`. */
export interface ConnectionsOptions {
  /** The IdP client (see `createAuthClient`). */
  auth: AuthClient;
  /** Where connections live; shared by every process that serves these users. */
  store: ConnectionStore;
  /** Refresh a token this long before it expires, but never more than half its lifetime before. Default 300 000 ms. */
  refreshBeforeMs?: number;
  /**
   * What `token(id)` hands to data calls: the id token (the network's resource servers take it), or the
   * provider's access token (what a standard OAuth resource server takes; its expiry comes from `expires_in`).
   * Default `"id_token"`.
   */
  bearer?: "id_token" | "access_token";
  /** How long a refresh lease is held at most; the token endpoint's timeout stays under half of it. Default 30 000 ms. */
  leaseMs?: number;
  /** How long a process uses the connection it last read without reading the store again. Default 60 000 ms. */
  cacheTtlMs?: number;
  /** How many connections a process keeps in memory at most (least recently used out). Default 10 000. */
  cacheSize?: number;
  /** Runs after a connection's status change is stored (`previousStatus` undefined for a new one); what it throws is ignored. */
  onStatusChange?: (connection: Connection, previousStatus: ConnectionStatus | undefined) => void | Promise<void>;
}

/** Options of {@link Connections.refresh}. */
export interface RefreshOptions {
  /** Ends the wait (for another process's refresh, or this one's); the refresh itself goes on for other callers. */
  signal?: AbortSignal;
}

/** End users' connections: made by `createConnections`. */
export interface Connections {
  /**
   * Checks the callback, exchanges its code, and stores the connection (replacing one with the same id).
   * `id` may be a function of the tokens (e.g. `(t) => \`${t.connector}:${t.subject}\``) when the app names
   * connections by who approved them; the code is then spent before the id is known.
   */
  complete(id: string | ((tokens: TokenSet) => string), callbackUrl: string | URL, checks: CallbackChecks): Promise<Connection>;
  /** The stored connection, or undefined. */
  get(id: string): Promise<Connection | undefined>;
  /** Every stored connection of this IdP and client. */
  list(): AsyncIterable<Connection>;
  /** The connection of a consent (a consent webhook names the consent, not the user). */
  findByConsentId(consentId: string): Promise<Connection | undefined>;
  /** Refreshes now, through the same single flight and lease as `token`. */
  refresh(id: string, options?: RefreshOptions): Promise<Connection>;
  /** Revokes at the IdP and stores the connection as `revoked`, its tokens erased (even when the IdP call fails; then it throws). */
  revoke(id: string): Promise<void>;
  /** A token function for `createClient({ token })`: the user's bearer (see `bearer`), refreshed before expiry and after a rejection. */
  token(id: string): (context?: TokenContext) => Promise<string>;
  /**
   * What a webhook receiver calls with a consent notification. The notification is a hint: the consent is read
   * with `client` (the service-token client) and its status decides — `REVOKED` ends the connection as revoked
   * (no IdP call), `EXPIRED` as needing reauthorization, `ACTIVE` with `CONSENT_UPDATED` refreshes it (at most
   * once per connection per 30 s). Idempotent; a failure to read the consent throws, so the delivery is retried.
   */
  applyNotification(notification: unknown, options: ApplyNotificationOptions): Promise<NotificationResult>;
}
