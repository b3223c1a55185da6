/** A fixed-window request counter: `limit` requests per `windowMs`. */
export interface RateLimitOptions {
  limit: number;
  windowMs: number;
}

export class RateLimiter {
  #windowStart = 0;
  #count = 0;

  constructor(private readonly options: RateLimitOptions) {}

  /** Counts a request; returns the seconds to wait when it is over the limit. */
  take(now = Date.now()): number | undefined {
    const { limit, windowMs } = this.options;
    if (now - this.#windowStart >= windowMs) {
      this.#windowStart = now;
      this.#count = 0;
    }
    if (this.#count < limit) {
      this.#count++;
      return undefined;
    }
    return Math.max(1, Math.ceil((this.#windowStart + windowMs - now) / 1000));
  }

  reset(): void {
    this.#windowStart = 0;
    this.#count = 0;
  }
}
