// What every step of the connection manager shares: the checked options,
// this process's identity as a lease owner, the cache, the bearer policy,
// store access, and the work in flight per connection.
import { randomToken } from "../encoding.js";
import type { Connection } from "../types.js";
import { createBearer, type Bearer } from "./bearer.js";
import { createCache, type Cache } from "./cache.js";
import type { Settings } from "./options.js";
import { createStoreAccess, type StoreAccess } from "./store-access.js";

export interface Context {
  readonly settings: Settings;
  /** This process's name in the leases it takes. */
  readonly owner: string;
  /** The token endpoint's timeout: under half the lease, so a refresh ends while its lease still holds. */
  readonly tokenTimeoutMs: number;
  /** How often a process waiting on another's lease reads the store again. */
  readonly pollMs: number;
  readonly cache: Cache;
  readonly bearer: Bearer;
  readonly rows: StoreAccess;
  /** The refresh running in this process, per connection. */
  readonly flights: Map<string, Promise<Connection>>;
  /** Writes of refreshed tokens still being retried: the next refresh of that connection waits for them. */
  readonly writing: Map<string, Promise<void>>;
}

export function createContext(settings: Settings): Context {
  const { leaseMs } = settings;
  const tokenTimeoutMs = Math.ceil(leaseMs / 2) - 1;
  const cache = createCache(settings.cacheTtlMs, settings.cacheSize);
  return {
    settings,
    owner: randomToken(16),
    tokenTimeoutMs,
    pollMs: Math.max(5, Math.min(250, Math.floor(leaseMs / 20))),
    cache,
    bearer: createBearer(settings.bearer, settings.refreshBeforeMs),
    rows: createStoreAccess(settings, cache, tokenTimeoutMs),
    flights: new Map(),
    writing: new Map(),
  };
}
