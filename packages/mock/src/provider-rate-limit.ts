import { RateLimiter, type RateLimitOptions } from "./rate-limit.js";

/** Per provider id: at most `limit` statement calls in each fixed window of `windowMs`. */
export type ProviderRateLimits = Readonly<Record<string, RateLimitOptions>>;

/** What one provider's limit has seen since the start (or the last `reset`). */
export interface ProviderRateLimitStats {
  /** Statement calls counted against the provider's limit, refused ones included. */
  requests: number;
  /** Of those, the ones answered 429. */
  limited: number;
}

function checkLimit(providerId: string, options: unknown): RateLimitOptions {
  const { limit, windowMs } = (options ?? {}) as Partial<RateLimitOptions>;
  const where = `providerRateLimits[${JSON.stringify(providerId)}]`;
  if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`${where}.limit must be an integer >= 1, got ${String(limit)}`);
  }
  if (typeof windowMs !== "number" || !Number.isFinite(windowMs) || windowMs <= 0) {
    throw new RangeError(`${where}.windowMs must be a finite number > 0, got ${String(windowMs)}`);
  }
  return { limit, windowMs };
}

/**
 * One fixed-window counter per provider, as a provider counts a client's
 * calls: every caller of this mock is the same client, so all of them spend
 * the same provider's budget, and one provider's count never touches another's.
 */
export class ProviderRateLimiter {
  readonly #limiters = new Map<string, RateLimiter>();
  readonly #stats = new Map<string, ProviderRateLimitStats>();

  constructor(limits: ProviderRateLimits) {
    if (typeof limits !== "object" || limits === null || Array.isArray(limits)) {
      throw new TypeError("providerRateLimits must be an object of { limit, windowMs } by provider id");
    }
    for (const [providerId, options] of Object.entries(limits)) {
      if (providerId === "") throw new TypeError("providerRateLimits must not have an empty provider id");
      this.#limiters.set(providerId, new RateLimiter(checkLimit(providerId, options)));
      this.#stats.set(providerId, { requests: 0, limited: 0 });
    }
  }

  /** Counts a statement call to the provider; returns the seconds to wait when it is over the limit. */
  take(providerId: string): number | undefined {
    const limiter = this.#limiters.get(providerId);
    const stats = this.#stats.get(providerId);
    if (!limiter || !stats) return undefined;
    stats.requests++;
    const retryAfter = limiter.take();
    if (retryAfter !== undefined) stats.limited++;
    return retryAfter;
  }

  /** A copy of every limited provider's counts, zeros included. */
  stats(): Record<string, ProviderRateLimitStats> {
    return Object.fromEntries([...this.#stats].map(([providerId, stats]) => [providerId, { ...stats }]));
  }

  reset(): void {
    for (const limiter of this.#limiters.values()) limiter.reset();
    for (const stats of this.#stats.values()) {
      stats.requests = 0;
      stats.limited = 0;
    }
  }
}
