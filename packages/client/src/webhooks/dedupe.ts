import { integerMessage, isIntegerAtLeast } from "../internal/checks.js";
import { FdxValidationError } from "../core/error.js";

/**
 * Where a webhook receiver records the notification ids it is handling or has handled, so that a redelivery is
 * answered without being handled twice. {@link memoryDedupe} keeps them in one process; `postgresDedupe(db)` from
 * `@fdxkit/postgres` shares them between instances; any other store (Redis `SET NX PX`, DynamoDB conditional writes) fits.
 */
export interface DedupeStore {
  /**
   * Records `notificationId` for `ttlMs` milliseconds if nothing holds it yet: `true` when this call took it (handle
   * the notification), `false` when an earlier claim still holds. Must be atomic across everything sharing the store.
   */
  claim(notificationId: string, ttlMs: number): Promise<boolean>;
  /** Drops a claim, so the next delivery of that id is handled (after a failure). */
  release(notificationId: string): Promise<void>;
  /** How long `createWebhookHandler` asks a claim to hold, in ms. Default 86 400 000 (24 h), longer than the sender retries. */
  readonly ttlMs?: number;
}

/** Options of {@link memoryDedupe}. */
export interface MemoryDedupeOptions {
  /** Ids kept at most; past it the oldest claims are forgotten first. Default 10 000. */
  max?: number;
  /** How long a claim holds, in milliseconds. Default 86 400 000 (24 h). */
  ttlMs?: number;
}

/** How long a claim holds when neither the store nor the caller says. */
export const DEFAULT_DEDUPE_TTL_MS = 86_400_000;

/**
 * A {@link DedupeStore} in this process's memory, for a receiver that runs as one instance. It holds at most `max`
 * ids, each for `ttlMs`, forgetting the oldest claims first (a redelivery of one of those would be handled again).
 * Receivers on several instances need a shared store such as `postgresDedupe` from `@fdxkit/postgres`.
 *
 * @example
 * ```ts
 * const handler = createWebhookHandler({ onNotification, dedupe: memoryDedupe() });
 * ```
 *
 * @throws {FdxValidationError} when `max` is not a positive integer or `ttlMs` not a positive number.
 */
export function memoryDedupe(options: MemoryDedupeOptions = {}): DedupeStore {
  const max = options.max ?? 10_000;
  const ttlMs = options.ttlMs ?? DEFAULT_DEDUPE_TTL_MS;
  if (!isIntegerAtLeast(max, 1)) throw new FdxValidationError([{ path: "max", message: integerMessage(1) }]);
  if (typeof ttlMs !== "number" || !(ttlMs > 0) || !Number.isFinite(ttlMs)) {
    throw new FdxValidationError([{ path: "ttlMs", message: "must be a positive number of milliseconds" }]);
  }
  // id → expiry (ms since the epoch), oldest claim first: a Map keeps insertion order.
  const claims = new Map<string, number>();

  return {
    ttlMs,
    async claim(notificationId, claimTtlMs) {
      const now = Date.now();
      const expires = claims.get(notificationId);
      if (expires !== undefined && expires > now) return false;
      // Re-inserted, so a renewed claim moves to the young end.
      claims.delete(notificationId);
      claims.set(notificationId, now + claimTtlMs);
      for (const [id, until] of claims) {
        if (claims.size <= max && until > now) break;
        claims.delete(id);
      }
      return true;
    },
    async release(notificationId) {
      claims.delete(notificationId);
    },
  };
}
