import { FdxAbortError, FdxRateLimitError } from "@fdxkit/client";

/** What the controller reports when it changes course (for the progress log and the summary). */
export type RateEvent =
  | { kind: "pause"; pauseMs: number; limit: number; previousLimit: number }
  | { kind: "increase"; limit: number };

/** What the client's `hooks.onRetry` passes (DESIGN.md §3 "Hooks"); only `error` and `delayMs` are read. */
export interface RetryEvent {
  error: unknown;
  delayMs: number;
}

export interface AimdOptions {
  /** The most requests in flight at once (`--concurrency`), and where the limit starts. */
  max: number;
  /** A 429 without `Retry-After` pauses for the client's own backoff delay, else this long. */
  defaultPauseMs?: number;
  onEvent?: (event: RateEvent) => void;
}

export interface RateStats {
  /** 429 answers seen (retried by the client, or final). */
  rateLimited: number;
  /** Shared pauses: one per burst of 429s, however many workers met them. */
  pauses: number;
  /** The lowest the limit went. */
  minLimit: number;
  /** The limit now. */
  limit: number;
}

/**
 * How many requests the export's workers may have in flight, shared by all
 * of them: additive increase, multiplicative decrease (AIMD), driven by the
 * 429s the client reports through `hooks.onRetry` (the client keeps doing
 * the retrying; this only decides when the workers start new requests).
 *
 * - A 429 starts one shared pause for its `Retry-After` (no worker starts a
 *   request until it ends) and halves the limit. 429s that arrive during a
 *   pause belong to the same burst (requests sent before it began): they may
 *   lengthen the pause to their own `Retry-After` but do not halve again,
 *   so four workers meeting one rate limit make one pause, not four.
 * - Each window of successes (as many in a row as the current limit, the
 *   per-round-trip step of TCP's congestion control) raises the limit by one,
 *   back up to `max`.
 */
export class AimdController {
  readonly max: number;
  #limit: number;
  #inFlight = 0;
  #pausedUntil = 0;
  #successes = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #waiters: { resolve: () => void; reject: (error: unknown) => void; signal: AbortSignal | undefined; onAbort: () => void }[] = [];
  readonly #defaultPauseMs: number;
  readonly #onEvent: (event: RateEvent) => void;
  readonly #stats: Omit<RateStats, "limit">;

  constructor(options: AimdOptions) {
    if (!Number.isSafeInteger(options.max) || options.max < 1) throw new RangeError("max must be an integer >= 1");
    this.max = options.max;
    this.#limit = options.max;
    this.#defaultPauseMs = options.defaultPauseMs ?? 1000;
    this.#onEvent = options.onEvent ?? (() => {});
    this.#stats = { rateLimited: 0, pauses: 0, minLimit: options.max };
  }

  get limit(): number {
    return this.#limit;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Until when (epoch ms) no new request starts; in the past when not paused. */
  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  stats(): RateStats {
    return { ...this.#stats, limit: this.#limit };
  }

  /** The `onRetry` hook: a 429 the client is about to retry. */
  readonly onRetry = (event: RetryEvent): void => {
    if (event.error instanceof FdxRateLimitError) this.rateLimited(event.error.retryAfterMs ?? event.delayMs);
  };

  /**
   * A 429: pauses everyone for `retryAfterMs` and halves the limit, unless a
   * pause is already under way (then at most lengthens it).
   */
  rateLimited(retryAfterMs: number | undefined): void {
    this.#stats.rateLimited++;
    const now = Date.now();
    const until = now + Math.max(0, retryAfterMs ?? this.#defaultPauseMs);
    if (now < this.#pausedUntil) {
      if (until > this.#pausedUntil) this.#pauseUntil(until);
      return;
    }
    const previousLimit = this.#limit;
    this.#limit = Math.max(1, Math.floor(this.#limit / 2));
    this.#stats.minLimit = Math.min(this.#stats.minLimit, this.#limit);
    this.#stats.pauses++;
    this.#successes = 0;
    this.#pauseUntil(until);
    this.#onEvent({ kind: "pause", pauseMs: until - now, limit: this.#limit, previousLimit });
  }

  /** Waits for a free slot (fewer than `limit` in flight, no pause); call `release` when the request is done. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new FdxAbortError("The export was cancelled", { cause: signal.reason }));
    if (this.#waiters.length === 0 && this.#free()) {
      this.#inFlight++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const at = this.#waiters.indexOf(waiter);
          if (at >= 0) this.#waiters.splice(at, 1);
          reject(new FdxAbortError("The export was cancelled", { cause: signal?.reason }));
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.#waiters.push(waiter);
      this.#pump();
    });
  }

  /** Frees a slot. `ok`: the request succeeded (it counts toward raising the limit). */
  release(ok: boolean): void {
    this.#inFlight--;
    if (ok && this.#limit < this.max && Date.now() >= this.#pausedUntil) {
      this.#successes++;
      if (this.#successes >= this.#limit) {
        this.#successes = 0;
        this.#limit++;
        this.#onEvent({ kind: "increase", limit: this.#limit });
      }
    }
    this.#pump();
  }

  /** Stops the pause timer (the export is over). */
  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #free(): boolean {
    return this.#inFlight < this.#limit && Date.now() >= this.#pausedUntil;
  }

  #pauseUntil(until: number): void {
    this.#pausedUntil = until;
    this.#pump();
  }

  #pump(): void {
    while (this.#waiters.length > 0 && this.#free()) {
      const waiter = this.#waiters.shift()!;
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      this.#inFlight++;
      waiter.resolve();
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const wait = this.#pausedUntil - Date.now();
    if (this.#waiters.length > 0 && wait > 0) this.#timer = setTimeout(() => this.#pump(), wait);
  }
}
