import { FdxValidationError } from "../core/error.js";
import { abortError, onAbort } from "../internal/abort.js";
import { checkTake, resolveLimits, type ActorType, type RateBudget, type RateLimits, type ResolvedLimit } from "./types.js";

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
  stop: () => void;
}

interface Bucket {
  limit: ResolvedLimit;
  tokens: number;
  /** performance.now() of the last refill. */
  at: number;
  pausedUntil: number;
  users: Waiter[];
  batch: Waiter[];
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** Tokens a batch call needs in the bucket: one, plus what is kept for users (never more than the bucket holds). */
const batchNeeds = (limit: ResolvedLimit) => Math.min(1 + limit.userReserve, limit.burst);

/**
 * A {@link RateBudget} for one process: a token bucket per provider. User calls are served first; a batch call goes
 * only when no user call waits and the bucket holds more than the user reserve, so a page an end user waits for never
 * queues behind a nightly job. Several processes sharing a provider need `postgresRateBudget` from `@fdxkit/postgres`.
 *
 * @example
 * const client = createClient({ baseUrl, token, rateBudget: memoryRateBudget({ limits: { "bank-a": { perSecond: 5 } } }) });
 */
export function memoryRateBudget(options: RateLimits = {}): RateBudget {
  const limitOf = resolveLimits(options);
  const buckets = new Map<string, Bucket>();

  const bucketOf = (providerId: string): Bucket | undefined => {
    let bucket = buckets.get(providerId);
    if (bucket) return bucket;
    const limit = limitOf(providerId);
    if (!limit) return undefined;
    bucket = { limit, tokens: limit.burst, at: performance.now(), pausedUntil: 0, users: [], batch: [], timer: undefined };
    buckets.set(providerId, bucket);
    return bucket;
  };

  const refill = (bucket: Bucket, now: number) => {
    // After a pause the bucket refills from the pause's end, not from before it.
    // Stryker disable next-line ConditionalExpression,EqualityOperator: without the guard the count would go below zero during a pause and climb back along the same line, reaching the same value at the same time
    if (now <= bucket.at) return;
    bucket.tokens = Math.min(bucket.limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * bucket.limit.perSecond);
    bucket.at = now;
  };

  /** Serves whoever may go now, users first, and sets one timer for the next that waits. */
  const pump = (bucket: Bucket) => {
    clearTimeout(bucket.timer);
    bucket.timer = undefined;
    const now = performance.now();
    refill(bucket, now);
    // Stryker disable next-line ConditionalExpression: during a pause the bucket holds no token (pause() empties it and refill waits for its end), so nothing would be served anyway
    if (now >= bucket.pausedUntil) {
      for (;;) {
        const queue = bucket.users.length ? bucket.users : bucket.batch;
        const needs = queue === bucket.users ? 1 : batchNeeds(bucket.limit);
        if (queue.length === 0 || bucket.tokens < needs) break;
        bucket.tokens -= 1;
        queue.shift()!.resolve();
      }
    }
    if (bucket.users.length === 0 && bucket.batch.length === 0) return;
    const needs = bucket.users.length ? 1 : batchNeeds(bucket.limit);
    const wait = Math.max(bucket.pausedUntil - now, ((needs - bucket.tokens) / bucket.limit.perSecond) * 1000);
    bucket.timer = setTimeout(() => pump(bucket), Math.max(1, Math.ceil(wait)));
  };

  return {
    take(providerId: string, actor: ActorType, signal?: AbortSignal): Promise<void> {
      try {
        checkTake(providerId, actor);
      } catch (error) {
        return Promise.reject(error);
      }
      // Stryker disable next-line ConditionalExpression: onAbort calls back at once for an aborted signal, which rejects the same way; this only skips the queue
      if (signal?.aborted) return Promise.reject(abortError(signal));
      const bucket = bucketOf(providerId);
      if (!bucket) return Promise.resolve();
      const queue = actor === "user" ? bucket.users : bucket.batch;
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          resolve: () => {
            waiter.stop();
            resolve();
          },
          reject,
          stop: () => {},
        };
        queue.push(waiter);
        waiter.stop = onAbort(signal, () => {
          const at = queue.indexOf(waiter);
          // Stryker disable next-line ConditionalExpression: a waiter is served by being taken off its queue, and serving it removes this listener first, so here it is always still queued
          if (at >= 0) queue.splice(at, 1);
          reject(abortError(signal!));
          // A user call that gave up may have been holding batch calls back.
          pump(bucket);
        });
        pump(bucket);
      });
    },

    async pause(providerId: string, ms: number): Promise<void> {
      checkTake(providerId, "user");
      if (!(typeof ms === "number" && Number.isFinite(ms) && ms >= 0)) throw new FdxValidationError([{ path: "ms", message: "must be a finite number >= 0" }]);
      const bucket = bucketOf(providerId);
      if (!bucket) return;
      bucket.pausedUntil = Math.max(bucket.pausedUntil, performance.now() + ms);
      // The provider refused: what the bucket held is spent on its side, and it fills again only once the pause ends.
      bucket.tokens = 0;
      bucket.at = bucket.pausedUntil;
      // Stryker disable next-line ConditionalExpression,LogicalOperator: pump() returns at once when no call waits, and a timer set before the pause only wakes early and sets itself again for its end
      if (bucket.users.length || bucket.batch.length) pump(bucket);
    },
  };
}
