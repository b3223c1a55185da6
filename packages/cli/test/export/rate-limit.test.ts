import { FdxAbortError, FdxMaintenanceError, FdxRateLimitError } from "@fdxkit/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AimdController, type RateEvent } from "../../src/export/rate-limit.js";

const init = (status: number) => ({ status, code: undefined, message: "m", debugMessage: undefined, body: undefined, headers: {}, method: "GET", url: "https://api.example.com/statements" });
/** What the client's onRetry hook passes for a 429 it is about to retry. */
const retry429 = (retryAfterMs: number | undefined, delayMs = retryAfterMs ?? 700) => ({
  method: "GET",
  url: "https://api.example.com/statements",
  attempt: 1,
  interactionId: "id",
  delayMs,
  error: new FdxRateLimitError({ ...init(429), code: "1207", retryAfterMs }),
});

/** Starts `n` acquisitions and reports which have been granted so far. */
function contenders(rate: AimdController, n: number) {
  const granted: number[] = [];
  for (let i = 0; i < n; i++) void rate.acquire().then(() => granted.push(i));
  return granted;
}

let events: RateEvent[];
beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-01-01T00:00:00Z") });
  events = [];
});
afterEach(() => {
  vi.useRealTimers();
});

describe("AimdController", () => {
  it("429s met by every worker at once make one shared pause for the Retry-After and halve the limit once", async () => {
    const rate = new AimdController({ max: 4, onEvent: (e) => events.push(e) });
    for (let i = 0; i < 4; i++) await rate.acquire();
    // All four in flight meet the rate limit; the client reports each before its retry wait.
    for (let i = 0; i < 4; i++) rate.onRetry(retry429(1000));
    expect(events).toEqual([{ kind: "pause", pauseMs: 1000, limit: 2, previousLimit: 4 }]);
    expect(rate.stats()).toEqual({ rateLimited: 4, pauses: 1, minLimit: 2, limit: 2, pacePerSecond: null });
    // Their retries complete; nobody new may start before the pause ends, even with free slots.
    for (let i = 0; i < 4; i++) rate.release(true);
    const granted = contenders(rate, 3);
    await vi.advanceTimersByTimeAsync(999);
    expect(granted).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    // Then at most the halved limit at once.
    expect(granted).toEqual([0, 1]);
    expect(rate.inFlight).toBe(2);
    rate.close();
  });

  it("a longer Retry-After during the pause lengthens it, without halving again", async () => {
    const rate = new AimdController({ max: 8, onEvent: (e) => events.push(e) });
    rate.onRetry(retry429(1000));
    await vi.advanceTimersByTimeAsync(500);
    rate.onRetry(retry429(2000));
    expect(rate.limit).toBe(4);
    expect(rate.pausedUntil).toBe(Date.now() + 2000);
    const granted = contenders(rate, 1);
    await vi.advanceTimersByTimeAsync(1999);
    expect(granted).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(granted).toEqual([0]);
    expect(events).toHaveLength(1);
    rate.close();
  });

  it("climbs back one step per window of successes, up to the maximum", async () => {
    const rate = new AimdController({ max: 4, onEvent: (e) => events.push(e) });
    rate.onRetry(retry429(1000));
    await vi.advanceTimersByTimeAsync(1000);
    expect(rate.limit).toBe(2);
    const succeed = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await rate.acquire();
        rate.release(true);
      }
    };
    await succeed(1);
    expect(rate.limit).toBe(2);
    await succeed(1); // a window of 2 successes at limit 2
    expect(rate.limit).toBe(3);
    await succeed(2);
    expect(rate.limit).toBe(3);
    await succeed(1); // a window of 3 at limit 3
    expect(rate.limit).toBe(4);
    await succeed(20);
    expect(rate.limit).toBe(4);
    // Failures do not count toward a step.
    rate.onRetry(retry429(1000));
    await vi.advanceTimersByTimeAsync(1000);
    for (let i = 0; i < 5; i++) {
      await rate.acquire();
      rate.release(false);
    }
    expect(rate.limit).toBe(2);
    expect(events.map((e) => (e.kind === "pause" ? `pause ${e.previousLimit}->${e.limit}` : e.kind === "increase" ? `up ${e.limit}` : `pace ${e.perSecond}`))).toEqual([
      "pause 4->2",
      "up 3",
      "up 4",
      "pause 4->2",
    ]);
    rate.close();
  });

  it("a 429 after the pause is a new burst: it halves again, never below one", async () => {
    const rate = new AimdController({ max: 3 });
    rate.onRetry(retry429(1000));
    await vi.advanceTimersByTimeAsync(1000);
    rate.onRetry(retry429(1000));
    await vi.advanceTimersByTimeAsync(1000);
    rate.onRetry(retry429(1000));
    expect(rate.stats()).toEqual({ rateLimited: 3, pauses: 3, minLimit: 1, limit: 1, pacePerSecond: null });
    rate.close();
  });

  it("a 429 without Retry-After pauses for the client's backoff delay; other retried errors change nothing", async () => {
    const rate = new AimdController({ max: 4 });
    rate.onRetry({ ...retry429(undefined, 700) });
    expect(rate.pausedUntil).toBe(Date.now() + 700);
    await vi.advanceTimersByTimeAsync(700);
    rate.onRetry({ ...retry429(undefined), error: new FdxMaintenanceError({ ...init(503), code: "503" }) });
    rate.onRetry({ ...retry429(undefined), error: new Error("connection reset") });
    expect(rate.stats()).toMatchObject({ rateLimited: 1, pauses: 1, limit: 2 });
    rate.close();
  });

  it("a final 429 (retries exhausted) pauses the others the same way", async () => {
    const rate = new AimdController({ max: 2 });
    rate.rateLimited(3000);
    expect(rate.limit).toBe(1);
    expect(rate.pausedUntil).toBe(Date.now() + 3000);
    rate.close();
  });

  it("a wait for a slot ends with FdxAbortError when the signal aborts", async () => {
    const rate = new AimdController({ max: 1 });
    await rate.acquire();
    const controller = new AbortController();
    const waiting = rate.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(FdxAbortError);
    await expect(rate.acquire(controller.signal)).rejects.toBeInstanceOf(FdxAbortError);
    // The aborted waiter does not hold the slot that frees up.
    rate.release(true);
    expect(rate.inFlight).toBe(0);
    rate.close();
  });
});
