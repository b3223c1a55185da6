// End users' connections (DESIGN.md §10): one rotating refresh token per
// connection, shared by every process on one store, so a refresh is single
// flight in a process and leased by compare-and-set across processes, and
// the tokens of a refresh are never dropped once the IdP has answered.
//
// What no store can close: a process that dies between the IdP's answer and
// its write loses the new pair, and the stored refresh token is spent; the
// next refresh then ends in `reauthorization_required`. The window is one
// store write long.
import { FdxAbortError, FdxError, FdxValidationError, type FdxIssue } from "../core/error.js";
import type { TokenContext } from "../core/options.js";
import { raceAbort, sleep } from "../internal/abort.js";
import type { AuthClient, CallbackChecks } from "./auth-client.js";
import { randomToken } from "./encoding.js";
import { FdxAuthError, FdxConnectionStoreError, FdxReauthorizationRequiredError } from "./errors.js";
import { peekClaims } from "./id-token.js";
import { applyNotification, type ApplyNotificationOptions, type NotificationResult } from "./notification.js";
import type { Connection, ConnectionStatus, ConnectionStore, TokenSet } from "./types.js";

/** Options of {@link createConnections}. */
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

/** End users' connections: made by {@link createConnections}. */
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

interface Entry {
  row: Connection;
  /** performance.now() when read or written. */
  readAt: number;
}

interface Storms {
  /** performance.now() of the last refresh caused by a rejection of an unexpired token. */
  rejectedAt?: number;
  /** performance.now() of the last failed proactive refresh. */
  proactiveFailedAt?: number;
}

/** At most one refresh per connection per this long from rejections, and between failed proactive refreshes. */
const STORM_MS = 30_000;
/** A lease whose row's version stays the same this much longer than leaseMs is dead. */
const LEASE_GRACE_MS = 5_000;
const END_GRANTS = new Set(["invalid_grant", "invalid_request"]);
/** The envelope of encryptConnectionStore's values. */
const SEALED = "fdxenc.";

/**
 * End users' connections on a store (DESIGN.md §10): `complete` stores the
 * result of an authorization, `token(id)` hands out the user's id token for
 * `createClient({ token })` — from memory on the hot path, refreshed before
 * expiry, and once more after a rejection — with one refresh at a time per
 * connection in a process and across processes (a lease by compare-and-set).
 * A refresh the IdP refuses with `invalid_grant` or `invalid_request`, when
 * the store holds nothing newer, ends the connection:
 * `FdxReauthorizationRequiredError`.
 *
 * @example
 * const connections = createConnections({ auth, store: memoryConnectionStore() });
 * await connections.complete("user-42", callbackUrl, { state, codeVerifier, nonce });
 * const user = client.withOptions({ token: connections.token("user-42") });
 */
export function createConnections(options: ConnectionsOptions): Connections {
  const issues: FdxIssue[] = [];
  const { auth, store } = options ?? ({} as ConnectionsOptions);
  if (typeof auth?.refresh !== "function" || typeof auth.exchangeCode !== "function") issues.push({ path: "auth", message: "must be an AuthClient (createAuthClient)" });
  if (typeof store?.get !== "function" || typeof store.compareAndSet !== "function" || typeof store.list !== "function" || typeof store.delete !== "function") {
    issues.push({ path: "store", message: "must be a ConnectionStore" });
  }
  const number = (path: keyof ConnectionsOptions, fallback: number, min: number) => {
    const value = options?.[path] ?? fallback;
    if (!(Number.isInteger(value) && (value as number) >= min)) issues.push({ path, message: `must be an integer >= ${min}` });
    return value as number;
  };
  const refreshBeforeMs = number("refreshBeforeMs", 300_000, 0);
  const leaseMs = number("leaseMs", 30_000, 10);
  const cacheTtlMs = number("cacheTtlMs", 60_000, 0);
  const cacheSize = number("cacheSize", 10_000, 1);
  const bearer = options?.bearer ?? "id_token";
  if (bearer !== "id_token" && bearer !== "access_token") issues.push({ path: "bearer", message: 'must be "id_token" or "access_token"' });
  const hook = options?.onStatusChange;
  if (hook !== undefined && typeof hook !== "function") issues.push({ path: "onStatusChange", message: "must be a function" });
  if (issues.length) throw new FdxValidationError(issues);

  const owner = randomToken(16);
  const tokenTimeoutMs = Math.ceil(leaseMs / 2) - 1;
  const pollMs = Math.max(5, Math.min(250, Math.floor(leaseMs / 20)));
  const cache = new Map<string, Entry>();
  const storms = new Map<string, Storms>();
  const flights = new Map<string, Promise<Connection>>();
  /** Writes of refreshed tokens still being retried: the next refresh of that connection waits for them. */
  const writing = new Map<string, Promise<void>>();

  const byAccessToken = bearer === "access_token";
  const bearerOf = (row: Connection) => (byAccessToken ? row.accessToken : row.idToken);
  const expiryOf = (row: Connection) => (byAccessToken ? row.accessTokenExpiresAt : row.expiresAt);
  // A provider that gave no expires_in: the access token is used until a data call rejects it.
  const unknownExpiry = (row: Connection) => byAccessToken && row.accessTokenExpiresAt === 0;
  const windows = new WeakMap<Connection, number>();
  /** How long before expiry a row's bearer is refreshed: refreshBeforeMs, capped at half the token's lifetime. */
  const windowOf = (row: Connection) => {
    let window = windows.get(row);
    if (window === undefined) {
      window = Math.min(refreshBeforeMs, lifetimeOf(row, byAccessToken) / 2);
      windows.set(row, window);
    }
    return window;
  };
  /** Whether a row's bearer may be handed out now: there, not the rejected one, and not yet in its refresh window. */
  const usable = (row: Connection, rejected: string | undefined) => {
    const token = bearerOf(row);
    if (token === "" || token === rejected) return false;
    return unknownExpiry(row) || expiryOf(row) - windowOf(row) > Date.now();
  };
  const handOut = (row: Connection) => {
    const token = bearerOf(row);
    if (token === "") throw noAccessToken();
    return token;
  };

  const remember = (row: Connection) => {
    const had = cache.get(row.id)?.row;
    // A read that began before this process stored a newer pair of the same connection must not put the older one back.
    if (had && had.createdAt === row.createdAt && had.version > row.version) return;
    cache.delete(row.id);
    // Stryker disable next-line ConditionalExpression: every caller passes an active row (load, complete and persist write or keep only active ones)
    if (row.status !== "active") return;
    cache.set(row.id, { row, readAt: performance.now() });
    if (cache.size > cacheSize) cache.delete(cache.keys().next().value!);
  };
  const stormOf = (id: string) => {
    let s = storms.get(id);
    if (!s) {
      s = {};
      storms.set(id, s);
      if (storms.size > cacheSize) storms.delete(storms.keys().next().value!);
    }
    return s;
  };

  const storeCall = async <T>(op: string, id: string | undefined, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw storeError(op, id, error);
    }
  };
  const read = (id: string) => storeCall("get", id, () => store.get(id));
  const write = (id: string, expected: number, next: Connection) => storeCall("compareAndSet", id, () => store.compareAndSet(id, expected, next));

  const isOwn = async (row: Connection) => row.clientId === auth.clientId && row.issuer === (await auth.issuer());
  const checkOwn = async (row: Connection) => {
    if (!(await isOwn(row))) {
      throw new FdxConnectionStoreError(`Connection ${JSON.stringify(row.id)} belongs to another issuer or client: not used`, { connectionId: row.id, reason: "foreign_connection" });
    }
    // Sealed tokens read without encryptConnectionStore (a key left out of one process's set-up): sent to the
    // IdP, the ciphertext would be refused and the connection ended as if the user had revoked it.
    if (row.refreshToken.startsWith(SEALED) || row.idToken.startsWith(SEALED) || row.accessToken.startsWith(SEALED)) {
      throw new FdxConnectionStoreError(`Connection ${JSON.stringify(row.id)} holds encrypted tokens: read the store through encryptConnectionStore with its keys`, {
        connectionId: row.id,
        reason: "undecryptable",
      });
    }
    return row;
  };
  /** The stored connection, active and ours, else the typed error. */
  const load = async (id: string) => {
    const row = await read(id);
    if (!row) throw new FdxReauthorizationRequiredError(id, "not_found");
    await checkOwn(row);
    if (row.status !== "active") throw new FdxReauthorizationRequiredError(id, row.status);
    remember(row);
    return row;
  };
  const changed = async (row: Connection, previous: ConnectionStatus | undefined) => {
    if (!hook || row.status === previous) return;
    try {
      await hook({ ...row, accounts: [...row.accounts] }, previous);
    } catch {
      // The change is stored; the app's hook failing does not undo it.
    }
  };
  const revokeQuietly = async (refreshToken: string) => {
    // Stryker disable next-line ConditionalExpression: no caller passes an empty token (each checks first), and createAuthClient's revoke refuses one before any request
    if (!refreshToken) return;
    try {
      await auth.revoke(refreshToken, { timeoutMs: tokenTimeoutMs });
    } catch {
      // Best effort: the token is not stored anywhere, and the IdP expires it.
    }
  };

  const fromSet = (base: Connection | undefined, id: string, set: TokenSet, now: number): Connection => ({
    id,
    status: "active",
    idToken: set.idToken,
    refreshToken: set.refreshToken,
    expiresAt: set.expiresAt,
    accessToken: set.accessToken,
    accessTokenExpiresAt: set.accessTokenExpiresAt,
    accounts: [...set.accounts],
    subject: set.subject,
    connector: set.connector,
    consentId: set.consentId,
    issuer: String(set.claims.iss),
    clientId: auth.clientId,
    createdAt: base?.createdAt ?? now,
    updatedAt: now,
    version: (base?.version ?? 0) + 1,
    lease: undefined,
  });

  /**
   * Writes a refreshed pair onto `base` (the version this process leased);
   * on a lost compare-and-set, onto the current version — unless the row was
   * revoked, deleted or replaced, when the new refresh token is revoked.
   */
  const persistOnce = async (id: string, base: Connection, set: TokenSet): Promise<Connection> => {
    for (;;) {
      const next = fromSet(base, id, set, Date.now());
      if (await write(id, base.version, next)) {
        remember(next);
        await changed(next, base.status);
        return next;
      }
      const current = await read(id);
      if (!current || current.status === "revoked" || current.createdAt !== base.createdAt || !(await isOwn(current))) {
        await revokeQuietly(set.refreshToken);
        if (current?.status === "active" && (await isOwn(current))) {
          remember(current);
          return current;
        }
        cache.delete(id);
        throw new FdxReauthorizationRequiredError(id, current ? current.status : "not_found");
      }
      base = current;
    }
  };

  const persist = async (id: string, base: Connection, set: TokenSet): Promise<Connection> => {
    try {
      return await persistOnce(id, base, set);
    } catch (error) {
      if (!(error instanceof FdxConnectionStoreError) || error.reason !== "store_error") throw error;
    }
    // The store failed: callers use the new pair from memory while the write is retried for up to leaseMs.
    const pending = fromSet(base, id, set, Date.now());
    remember(pending);
    const deadline = performance.now() + leaseMs;
    const retry = (async () => {
      for (let delay = pollMs; performance.now() < deadline; delay = Math.min(delay * 2, 1000)) {
        await sleep(Math.min(delay, Math.max(0, deadline - performance.now())));
        try {
          await persistOnce(id, base, set);
          return;
        } catch (error) {
          if (!(error instanceof FdxConnectionStoreError) || error.reason !== "store_error") return;
        }
      }
    })().finally(() => writing.delete(id));
    writing.set(id, retry);
    return pending;
  };

  /** Clears this process's lease after a failed refresh; a store failing here leaves it to expire. */
  const release = async (id: string, leased: Connection) => {
    try {
      let row: Connection | undefined = leased;
      // Stryker disable next-line OptionalChaining: a row without a lease then throws a TypeError, which the catch below ends the same way
      for (let tries = 0; row && row.lease?.owner === owner && tries < 3; tries++) {
        if (await write(id, row.version, { ...row, lease: undefined, version: row.version + 1, updatedAt: Date.now() })) return;
        row = await read(id);
      }
    } catch {
      // The lease expires on its own (others judge it by the version).
    }
  };

  /** Takes the lease, waiting while another process holds a live one. Resolves undefined when `done(row)` says the wait is over. */
  const acquire = async (id: string, done: (row: Connection) => boolean, expired: (row: Connection) => boolean) => {
    let seenVersion = -1;
    let seenAt = 0;
    for (;;) {
      const row = await load(id);
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
      if (await write(id, row.version, leased)) return { row, leased };
    }
  };

  const refreshFlight = async (id: string, stale: string, proactive: boolean): Promise<Connection> => {
    await writing.get(id);
    const { row, leased } = await acquire(
      id,
      (r) => bearerOf(r) !== stale && usable(r, undefined),
      // During a proactive refresh the still-valid token is used instead of waiting for another process.
      (r) => !(proactive && bearerOf(r) === stale && expiryOf(r) > Date.now()),
    );
    if (!leased) return row;
    let set: TokenSet;
    try {
      const claims = peekClaims(leased.idToken);
      set = await auth.refresh(leased.refreshToken, {
        timeoutMs: tokenTimeoutMs,
        previousClaims: claims && { iss: claims.iss, sub: claims.sub, aud: claims.aud },
        // A refresh answer may leave the id token out (OpenID Connect Core §12.2): the access token is the bearer, so the claims are kept.
        ...(byAccessToken && claims ? { previous: { idToken: leased.idToken, claims } } : {}),
      });
    } catch (error) {
      if (error instanceof FdxAuthError && error.status !== undefined && END_GRANTS.has(error.error)) return end(id, leased, error);
      await release(id, leased);
      throw error;
    }
    return persist(id, leased, set);
  };

  /** The IdP refused the refresh token: unless the store holds a newer pair, the connection ends. */
  const end = async (id: string, leased: Connection, error: FdxAuthError): Promise<Connection> => {
    for (let current = await read(id); ; current = await read(id)) {
      if (!current || current.createdAt !== leased.createdAt || current.status !== "active" || current.refreshToken !== leased.refreshToken) {
        // Another process rotated it meanwhile, or it was replaced, revoked or deleted.
        if (current?.lease?.owner === owner) await release(id, current);
        return load(id);
      }
      const next: Connection = { ...current, status: "reauthorization_required", idToken: "", refreshToken: "", accessToken: "", lease: undefined, version: current.version + 1, updatedAt: Date.now() };
      if (await write(id, current.version, next)) {
        cache.delete(id);
        await changed(next, current.status);
        throw new FdxReauthorizationRequiredError(id, error.error, { cause: error });
      }
    }
  };

  const flight = (id: string, stale: string, proactive: boolean, signal: AbortSignal | undefined): Promise<Connection> => {
    let running = flights.get(id);
    if (!running) {
      running = refreshFlight(id, stale, proactive).finally(() => flights.delete(id));
      flights.set(id, running);
      // A flight whose callers all gave up (their signals) still settles; nobody else need hear of its failure.
      running.catch(() => undefined);
    }
    return raceAbort(running, signal);
  };

  const fresh = (id: string) => {
    const entry = cache.get(id);
    if (!entry) return undefined;
    if (performance.now() - entry.readAt >= cacheTtlMs) {
      cache.delete(id);
      return undefined;
    }
    // Least recently used goes first: a hit moves to the end.
    cache.delete(id);
    cache.set(id, entry);
    return entry.row;
  };

  const token = async (id: string, context: TokenContext | undefined): Promise<string> => {
    const rejected = context?.rejected;
    const signal = context?.signal;
    if (signal?.aborted) throw new FdxAbortError(undefined, { cause: signal.reason });
    let row = fresh(id);
    if (row && usable(row, rejected)) return bearerOf(row);
    // A rejection, expiry or refresh time: what another process stored may already be newer.
    row = await raceAbort(load(id), signal);
    if (usable(row, rejected)) return bearerOf(row);
    const storm = stormOf(id);
    // A token of unknown expiry counts as expired once rejected: the storm bound is for tokens known to be valid.
    const unexpired = !unknownExpiry(row) && expiryOf(row) > Date.now();
    const rejection = rejected !== undefined && rejected === bearerOf(row);
    const proactive = !rejection && unexpired;
    // Callers that arrive while a refresh runs join it; the storm bounds only hold back a new one.
    if (!flights.has(id)) {
      const now = performance.now();
      const held = rejection && unexpired ? storm.rejectedAt : proactive ? storm.proactiveFailedAt : undefined;
      if (held !== undefined && now - held < STORM_MS) {
        // A refresh that ended since this caller read the store has left its pair in memory.
        const latest = fresh(id);
        // The rejected token itself, for a rejection: the 401 reaches the caller rather than another refresh so soon.
        return handOut(latest && usable(latest, rejected) ? latest : row);
      }
      if (rejection && unexpired) storm.rejectedAt = now;
    }
    try {
      return handOut(await flight(id, bearerOf(row), proactive, signal));
    } catch (error) {
      if (proactive && !(error instanceof FdxReauthorizationRequiredError) && !(error instanceof FdxAbortError) && expiryOf(row) > Date.now()) {
        storm.proactiveFailedAt = performance.now();
        return handOut(row);
      }
      throw error;
    }
  };

  // A stored connection lives by its refresh token, whatever the checks say.
  const exchangeOptions = { timeoutMs: tokenTimeoutMs, requireRefreshToken: true };
  const checkBearer = (set: TokenSet) => {
    if (byAccessToken && set.accessToken === "") throw noAccessToken();
  };

  /** Ends a connection for a consent notification: its tokens erased, no IdP call, written once whoever else tries. */
  const endForConsent = async (id: string, consentId: string, status: "revoked" | "reauthorization_required") => {
    for (let current = await read(id); current; current = await read(id)) {
      // Replaced by a new authorization (another consent), or already ended: nothing more to do.
      if (current.consentId !== consentId || current.status === "revoked" || current.status === status || !(await isOwn(current))) return undefined;
      const next: Connection = { ...current, status, idToken: "", refreshToken: "", accessToken: "", lease: undefined, version: current.version + 1, updatedAt: Date.now() };
      if (await write(id, current.version, next)) {
        cache.delete(id);
        await changed(next, current.status);
        return next;
      }
    }
    return undefined;
  };
  /** performance.now() of the last refresh a notification asked for, per connection. */
  const notified = new Map<string, number>();
  const refreshForNotification = async (id: string) => {
    const last = notified.get(id);
    const now = performance.now();
    if (last !== undefined && now - last < STORM_MS) return undefined;
    notified.delete(id);
    notified.set(id, now);
    if (notified.size > cacheSize) notified.delete(notified.keys().next().value!);
    const row = await load(id);
    return flight(id, bearerOf(row), false, undefined);
  };

  const checkId = (id: unknown, path = "id") => {
    if (typeof id !== "string" || id === "") throw new FdxValidationError([{ path, message: "must be a non-empty string" }]);
  };

  return {
    async complete(idOrName, callbackUrl, checks) {
      let id: string;
      let set: TokenSet;
      let existing: Connection | undefined;
      if (typeof idOrName === "function") {
        // The id comes from the tokens (e.g. the subject): known only once the code is spent.
        set = await auth.exchangeCode(callbackUrl, checks, exchangeOptions);
        try {
          checkBearer(set);
          id = idOrName(set);
          checkId(id);
          existing = await read(id);
          if (existing) await checkOwn(existing);
        } catch (error) {
          await revokeQuietly(set.refreshToken);
          throw error;
        }
      } else {
        id = idOrName;
        checkId(id);
        existing = await read(id);
        // Checked before the code is spent: a row of another IdP or client is not replaced.
        if (existing) await checkOwn(existing);
        set = await auth.exchangeCode(callbackUrl, checks, exchangeOptions);
        try {
          checkBearer(set);
        } catch (error) {
          await revokeQuietly(set.refreshToken);
          throw error;
        }
      }
      let base = existing;
      const deadline = performance.now() + leaseMs;
      for (let delay = pollMs; ; delay = Math.min(delay * 2, 1000)) {
        try {
          // One clock reading: a new connection's createdAt and updatedAt are the same instant.
          const now = Date.now();
          const next = { ...fromSet(base, id, set, now), createdAt: now };
          if (await write(id, base?.version ?? 0, next)) {
            remember(next);
            if (base?.refreshToken) await revokeQuietly(base.refreshToken);
            await changed(next, base?.status);
            return next;
          }
          base = await read(id);
          if (base) await checkOwn(base);
        } catch (error) {
          const storeFailed = error instanceof FdxConnectionStoreError && error.reason === "store_error";
          if (!storeFailed || performance.now() >= deadline) {
            // Nothing of this authorization is stored: its refresh token must not outlive it.
            await revokeQuietly(set.refreshToken);
            throw error;
          }
          await sleep(delay);
        }
      }
    },

    async get(id) {
      checkId(id);
      const row = await read(id);
      return row && checkOwn(row);
    },

    async *list() {
      const rows = store.list();
      const iterator = rows[Symbol.asyncIterator]();
      for (;;) {
        const step = await storeCall("list", undefined, () => iterator.next());
        if (step.done) return;
        if (await isOwn(step.value)) yield step.value;
      }
    },

    async findByConsentId(consentId) {
      checkId(consentId, "consentId");
      if (store.findByConsentId) {
        const row = await storeCall("findByConsentId", undefined, () => store.findByConsentId!(consentId));
        return row && (await isOwn(row)) ? row : undefined;
      }
      for await (const row of this.list()) if (row.consentId === consentId) return row;
      return undefined;
    },

    async refresh(id, refreshOptions) {
      checkId(id);
      const signal = refreshOptions?.signal;
      const row = await raceAbort(load(id), signal);
      // Stryker disable next-line BooleanLiteral: a proactive flight that leaves the token as it was is followed by the waiting one below
      const result = await flight(id, bearerOf(row), false, signal);
      if (bearerOf(result) === bearerOf(row)) return flight(id, bearerOf(row), false, signal);
      return result;
    },

    async revoke(id) {
      checkId(id);
      // After any refresh of this process: its tokens are the ones to revoke.
      await flights.get(id)?.catch(() => undefined);
      await writing.get(id);
      let leased: Connection | undefined;
      try {
        leased = (await acquire(id, () => false, () => true)).leased!;
      } catch (error) {
        // Already ended or gone: nothing to revoke (a reauthorization-required row still becomes revoked below).
        if (!(error instanceof FdxReauthorizationRequiredError)) throw error;
        const row = await read(id);
        if (!row || row.status === "revoked") return;
        leased = row;
      }
      cache.delete(id);
      let failure: unknown;
      if (leased.refreshToken) {
        try {
          await auth.revoke(leased.refreshToken, { timeoutMs: tokenTimeoutMs });
        } catch (error) {
          failure = error;
        }
      }
      for (let current: Connection | undefined = leased; current; current = await read(id)) {
        if (current.status === "revoked") break;
        // A lease holder judged dead may have written a newer pair meanwhile: it is revoked too.
        // Stryker disable next-line LogicalOperator: the only extra case is an erased row, whose empty token revokeQuietly skips
        if (current !== leased && current.refreshToken && current.refreshToken !== leased.refreshToken) await revokeQuietly(current.refreshToken);
        const next: Connection = { ...current, status: "revoked", idToken: "", refreshToken: "", accessToken: "", lease: undefined, version: current.version + 1, updatedAt: Date.now() };
        if (await write(id, current.version, next)) {
          cache.delete(id);
          await changed(next, current.status);
          break;
        }
      }
      if (failure !== undefined) throw failure;
    },

    token(id) {
      checkId(id);
      return (context) => token(id, context);
    },

    applyNotification(notification, applyOptions) {
      return applyNotification({ findByConsentId: (consentId) => this.findByConsentId(consentId), end: endForConsent, refreshThrottled: refreshForNotification }, notification, applyOptions);
    },
  };
}

/**
 * A token's lifetime in milliseconds (Infinity when unknown): `exp − iat` of
 * the id token, or for the access token the time from the row's write, when
 * its pair was issued, to `accessTokenExpiresAt` (from `expires_in`).
 */
function lifetimeOf(row: Connection, byAccessToken: boolean): number {
  if (byAccessToken) return row.accessTokenExpiresAt > row.updatedAt ? row.accessTokenExpiresAt - row.updatedAt : Infinity;
  const claims = peekClaims(row.idToken);
  const exp = claims?.exp;
  const iat = claims?.iat;
  return typeof exp === "number" && typeof iat === "number" && iat < exp ? (exp - iat) * 1000 : Infinity;
}

function noAccessToken(): FdxAuthError {
  return new FdxAuthError({ error: "no_access_token", errorDescription: 'the provider sent no access token, and bearer: "access_token" hands one to data calls' });
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
