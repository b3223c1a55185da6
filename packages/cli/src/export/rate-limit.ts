import { FdxAbortError, FdxRateLimitError } from "@fdxkit/client";

/** What the controller reports when it changes course (for the progress log and the summary). */
export type RateEvent =
  | { kind: "pause"; pauseMs: number; limit: number; previousLimit: number }
  | { kind: "increase"; limit: number }
  /** Attempts now start at most `requests` in any `windowMs` (learned from the answers before the first 429). */
  | { kind: "pace"; requests: number; windowMs: number };

/** What the client's `hooks.onRetry` passes; only `error` and `delayMs` are read, so a richer event fits too. */
export interface RetryEvent {
  error: unknown;
  delayMs: number;
}

/** What the client's `hooks.onResponse` passes; only `status` and `durationMs` are read. */
export interface ResponseEvent {
  status: number;
  durationMs: number;
}

export interface AimdOptions {
  /** The most requests in flight at once (`--concurrency`), and where the limit starts. */
  max: number;
  /** A 429 without `Retry-After` pauses for the client's own backoff delay, else this long. */
  defaultPauseMs?: number;
  /** Ends the waits of `onRequest` (the attempt then sees the abort itself). */
  signal?: AbortSignal;
  onEvent?: (event: RateEvent) => void;
  /**
   * `false` when a rate budget paces the requests (and a 429 pauses the
   * budget, for every process sharing it): the controller then only bounds
   * the requests in flight at `max` and counts the 429s. Default `true`.
   */
  adaptive?: boolean;
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
  /**
   * What the pace keeps to: at most `requests` attempts started in any
   * `windowMs`, learned from the first 429 (lowered by 429s met at it); null
   * while no 429 came.
   */
  pace: { requests: number; windowMs: number } | null;
}

/** The learned window is stretched this much: room for the jitter between our clock and the provider's. */
const WINDOW_MARGIN = 1.05;
/** After a 429 despite the pace: the quota is lowered this much, then climbs back (see `AimdController`). */
const PACE_DECREASE = 0.5;
/** A 429 at the full quota lowers the learned quota by this much, never below `PACE_FLOOR` of the first estimate. */
const CEILING_DECREASE = 0.9;
const PACE_FLOOR = 0.5;
/** Admitted answers for the quota to climb from halved back to the learned one. */
const PACE_CLIMB_STEPS = 10;
/** Attempts remembered before a pace is learned (their start times: a few bytes each). */
const MAX_LOG = 10_000;

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
 *
 * Halving the concurrency alone does not keep a rate (requests per window)
 * limit: the workers still burst into it, and every window then costs its
 * burst plus a whole pause (`Retry-After` has one-second granularity). So
 * the first 429 also teaches a pace, which `onRequest` (the client's hook,
 * run before every attempt, retries and list pages included) keeps to:
 * at most Q attempts started in any W milliseconds (a sliding window on our
 * side, which keeps within a provider's fixed or sliding window alike).
 *
 * - Learned from the epoch that ended in the 429 (since the run, or the last
 *   pause, began): N answers the provider admitted (not 429) to attempts
 *   started in it, over T since the first of them, and R the 429's
 *   `Retry-After` (a 429 without one teaches nothing). A burst quicker than R filled the quota, which frees again
 *   within R: Q = N per W = R. A slower one shows what was admitted: N per
 *   T, so Q = N·R/T per R. W is stretched by `WINDOW_MARGIN` for jitter.
 *   (`Retry-After` is rounded up to whole seconds, so R overstates the wait:
 *   the estimate errs low.)
 * - A 429 despite the pace (a window fuller than learned, a fault): the quota
 *   halves and climbs back to the learned one over `PACE_CLIMB_STEPS`
 *   admitted answers; if it was at the learned quota, that is lowered by 10%
 *   (never below half the first estimate), so an estimate that was too high
 *   stops meeting the limit after a few pauses. It never probes above the
 *   learned quota: with whole-second `Retry-After`s each probe that meets the
 *   limit would cost a full pause.
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
  readonly #stats: Omit<RateStats, "limit" | "pace">;
  readonly #signal: AbortSignal | undefined;
  readonly #adaptive: boolean;
  /** The learned quota (attempts per `#windowMs`), the pace's ceiling; undefined until the first 429 taught one. */
  #learned: number | undefined;
  #firstLearned = 0;
  #windowMs = 0;
  /** The quota now, at most `#learned` (a fraction while climbing back; at least one attempt is let through). */
  #quota = 0;
  /** Start times (epoch ms) of the latest attempts, oldest first: at most the learned quota of them are kept. */
  readonly #starts: number[] = [];
  /** Since when answers count toward learning: the start of the run or the end of the last pause. */
  #epochStart = Number.NEGATIVE_INFINITY;
  /** The first attempt started in this epoch. */
  #epochFirst: number | undefined;
  /** Answers admitted (not 429) to attempts started in this epoch. */
  #admitted = 0;

  constructor(options: AimdOptions) {
    if (!Number.isSafeInteger(options.max) || options.max < 1) throw new RangeError("max must be an integer >= 1");
    this.max = options.max;
    this.#limit = options.max;
    this.#defaultPauseMs = options.defaultPauseMs ?? 1000;
    this.#signal = options.signal;
    this.#adaptive = options.adaptive ?? true;
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

  /** The pace now: at most `requests` attempts in any `windowMs`; undefined while none was learned. */
  get pace(): { requests: number; windowMs: number } | undefined {
    return this.#learned === undefined ? undefined : { requests: this.#allowed(), windowMs: this.#windowMs };
  }

  stats(): RateStats {
    return {
      ...this.#stats,
      limit: this.#limit,
      pace: this.#learned === undefined ? null : { requests: Math.max(1, Math.floor(this.#learned)), windowMs: Math.round(this.#windowMs) },
    };
  }

  #allowed(): number {
    return Math.max(1, Math.floor(this.#quota));
  }

  /**
   * The `onRequest` hook: before every attempt (retries and list pages
   * included), waits for the shared pause to end and, once a pace was
   * learned, for the attempt's turn.
   */
  readonly onRequest = async (): Promise<void> => {
    // The budget holds each attempt for its turn; a second pace here would only slow it.
    if (!this.#adaptive) return;
    for (;;) {
      const now = Date.now();
      const starts = this.#starts;
      const paced = this.#learned !== undefined;
      // Before a pace, the window is not known yet: the starts are kept (up to MAX_LOG) for when it is.
      while (paced && starts.length > 0 && starts[0]! <= now - this.#windowMs) starts.shift();
      // The attempt that would be one too many in the window waits for the oldest to leave it.
      const full = paced && starts.length >= this.#allowed();
      const at = Math.max(this.#pausedUntil, full ? starts[starts.length - this.#allowed()]! + this.#windowMs : 0);
      if (at <= now || this.#signal?.aborted) {
        starts.push(now);
        // Only the latest attempts can matter to a quota no larger than the learned one (before any, a bound on memory).
        if (starts.length > (this.#learned ?? MAX_LOG)) starts.shift();
        this.#epochFirst ??= now;
        return;
      }
      await this.#sleep(at - now);
    }
  };

  /** The `onResponse` hook: counts the answers the provider admitted, to learn its rate from. */
  readonly onResponse = (event: ResponseEvent): void => {
    if (event.status === 429) return;
    const now = Date.now();
    if (now - event.durationMs < this.#epochStart) return;
    this.#admitted++;
    if (this.#learned !== undefined && this.#quota < this.#learned && now >= this.#pausedUntil) {
      this.#quota = Math.min(this.#learned, this.#quota + this.#learned * (PACE_DECREASE / PACE_CLIMB_STEPS));
    }
  };

  /** The `onRetry` hook: a 429 the client is about to retry. */
  readonly onRetry = (event: RetryEvent): void => {
    if (event.error instanceof FdxRateLimitError) this.rateLimited(event.error.retryAfterMs, event.delayMs);
  };

  /**
   * A 429: pauses everyone for `retryAfterMs` and halves the limit, unless a
   * pause is already under way (then at most lengthens it).
   */
  rateLimited(retryAfterMs: number | undefined, backoffMs?: number): void {
    this.#stats.rateLimited++;
    // The budget was paused for every process sharing it; halving here would leave its share unused.
    if (!this.#adaptive) return;
    const now = Date.now();
    const until = now + Math.max(0, retryAfterMs ?? backoffMs ?? this.#defaultPauseMs);
    if (now < this.#pausedUntil) {
      if (until > this.#pausedUntil) {
        this.#epochStart = until;
        this.#pauseUntil(until);
      }
      return;
    }
    const previousLimit = this.#limit;
    this.#limit = Math.max(1, Math.floor(this.#limit / 2));
    this.#stats.minLimit = Math.min(this.#stats.minLimit, this.#limit);
    this.#stats.pauses++;
    this.#successes = 0;
    const learned = this.#learn(now, retryAfterMs);
    this.#epochStart = until;
    this.#epochFirst = undefined;
    this.#admitted = 0;
    this.#pauseUntil(until);
    this.#onEvent({ kind: "pause", pauseMs: until - now, limit: this.#limit, previousLimit });
    if (learned) this.#onEvent({ kind: "pace", requests: this.#allowed(), windowMs: Math.round(this.#windowMs) });
  }

  /** A new pause at `now`: learns the pace (the first time) or lowers it. Whether it learned one. */
  #learn(now: number, retryAfterMs: number | undefined): boolean {
    if (this.#learned === undefined) {
      // Nothing admitted (the quota was spent before this run, or a fault), or no Retry-After (a backoff delay
      // says nothing of the provider's window): nothing to learn from yet.
      if (this.#admitted === 0 || this.#epochFirst === undefined || retryAfterMs === undefined) return false;
      const retryMs = Math.max(retryAfterMs, 1);
      const spanMs = now - this.#epochFirst;
      this.#learned = this.#firstLearned = Math.max(1, Math.floor(this.#admitted * Math.min(1, retryMs / Math.max(spanMs, 1))));
      this.#windowMs = retryMs * WINDOW_MARGIN;
      this.#quota = this.#learned;
      // The older starts cannot count against a quota this size.
      this.#starts.splice(0, Math.max(0, this.#starts.length - this.#learned));
      return true;
    }
    if (this.#quota >= this.#learned) this.#learned = Math.max(this.#firstLearned * PACE_FLOOR, this.#learned * CEILING_DECREASE);
    this.#quota = Math.min(this.#learned, this.#quota) * PACE_DECREASE;
    return false;
  }

  /** Resolves after `ms`, or at once when the export's signal aborts. */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.#signal;
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener("abort", done, { once: true });
    });
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
