// The retry policy: which failures are tried again, and how long to wait
// before the next attempt.

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A server asking to wait longer than this gets its error surfaced instead. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Methods safe to repeat after a failure that may have reached the server. POST never is. */
const IDEMPOTENT = new Set(["GET", "HEAD", "PATCH", "DELETE"]);

/**
 * Whether a failed attempt is retried: `status` is the response's, undefined
 * for a connection error or timeout. 429 and 503 mean "not processed, come
 * back": retried for every method. A 500, 502, 504 or a failure without a
 * response may have left the request processed: only idempotent methods repeat.
 */
export function isRetryable(method: string, status?: number): boolean {
  if (status === 429 || status === 503) return true;
  return (status === undefined || status === 500 || status === 502 || status === 504) && IDEMPOTENT.has(method);
}

/** Whether the call tries again after attempt `attempt` failed. A server's Retry-After wins over the backoff, so one too long surfaces the error. */
export function shouldRetry(method: string, attempt: number, maxRetries: number, status: number | undefined, retryAfterMs: number | undefined): boolean {
  return attempt <= maxRetries && isRetryable(method, status) && (retryAfterMs ?? 0) <= MAX_RETRY_AFTER_MS;
}

/** Exponential backoff with full jitter: uniform in [0, min(8 s, 0.5 s · 2^retry)). */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retry));
}
