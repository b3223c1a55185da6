import { FdxAbortError, FdxMaintenanceError, FdxRateLimitError } from "@fdxkit/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AimdController, type RateEvent } from "../../src/export/rate-limit.js";

const init = (status: number) => ({
  status,
  code: undefined,
  message: "m",
  debugMessage: undefined,
  body: undefined,
  headers: {},
  method: "GET",
  url: "https://api.example.com/statements",
});
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
    expect(rate.stats()).toEqual({ rateLimited: 4, pauses: 1, minLimit: 2, limit: 2, pace: null });
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
    expect(
      events.map((e) =>
        e.kind === "pause" ? `pause ${e.previousLimit}->${e.limit}` : e.kind === "increase" ? `up ${e.limit}` : `pace ${e.requests}/${e.windowMs}`,
      ),
    ).toEqual(["pause 4->2", "up 3", "up 4", "pause 4->2"]);
    rate.close();
  });

  it("a 429 after the pause is a new burst: it halves again, never below one", async () => {
    const rate = new AimdController({ max: 3 });
    rate.onRetry(retry429(1000));
    await vi.advanceTimersByTimeAsync(1000);
    rate.onRetry(retry429(1000));
    await vi.advanceTimersByTimeAsync(1000);
    rate.onRetry(retry429(1000));
    expect(rate.stats()).toEqual({ rateLimited: 3, pauses: 3, minLimit: 1, limit: 1, pace: null });
    rate.close();
  });

  it("a 429 without Retry-After pauses for the client's backoff delay, and teaches no pace; other retried errors change nothing", async () => {
    const rate = new AimdController({ max: 4 });
    for (let i = 0; i < 5; i++) await admitted(rate);
    rate.onRetry({ ...retry429(undefined, 700) });
    expect(rate.pausedUntil).toBe(Date.now() + 700);
    // A backoff delay says nothing of the provider's window.
    expect(rate.pace).toBeUndefined();
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

/** One attempt the provider admits: through `onRequest` (its wait for the pace included), then its answer after `ms`. */
async function admitted(rate: AimdController, ms = 0) {
  let through = false;
  void rate.onRequest().then(() => (through = true));
  await vi.advanceTimersByTimeAsync(0);
  while (!through) await vi.advanceTimersByTimeAsync(1);
  await vi.advanceTimersByTimeAsync(ms);
  rate.onResponse({ status: 200, durationMs: ms });
}

/** Starts `n` attempts through `onRequest` and records the (fake) time each was let through. */
function attempts(rate: AimdController, n: number) {
  const started: number[] = [];
  const t0 = Date.now();
  for (let i = 0; i < n; i++) void rate.onRequest().then(() => started.push(Date.now() - t0));
  return started;
}

describe("AimdController: pacing", () => {
  it("learns the quota from the answers admitted before the first 429, then lets at most that many attempts start in any window", async () => {
    const rate = new AimdController({ max: 4, onEvent: (e) => events.push(e) });
    // Unpaced until a 429: 20 attempts admitted at once, then the limit.
    for (let i = 0; i < 20; i++) await admitted(rate);
    expect(rate.pace).toBeUndefined();
    rate.onRetry(retry429(1000));
    // 20 admitted, the quota free again within 1 s: 20 per second, the window stretched 5% for jitter.
    expect(rate.pace).toEqual({ requests: 20, windowMs: 1050 });
    expect(events).toEqual([
      { kind: "pause", pauseMs: 1000, limit: 2, previousLimit: 4 },
      { kind: "pace", requests: 20, windowMs: 1050 },
    ]);
    expect(rate.stats().pace).toEqual({ requests: 20, windowMs: 1050 });
    // Every attempt (a retry as much as a new request) waits for the pause, and for the 20 before it to leave the window.
    const started = attempts(rate, 25);
    await vi.advanceTimersByTimeAsync(1049);
    expect(started).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toEqual(Array(20).fill(1050));
    await vi.advanceTimersByTimeAsync(1049);
    expect(started).toHaveLength(20);
    await vi.advanceTimersByTimeAsync(1);
    expect(started.slice(20)).toEqual(Array(5).fill(2100));
    rate.close();
  });

  it("a burst slower than the Retry-After is measured over its own length", async () => {
    const rate = new AimdController({ max: 4 });
    // 10 admitted over 2 s: 5 a second, so 5 per the 1 s Retry-After (not 10).
    for (let i = 0; i < 10; i++) await admitted(rate, 200);
    rate.onRetry(retry429(1000));
    expect(rate.pace).toEqual({ requests: 5, windowMs: 1050 });
    rate.close();
  });

  it("counts only the answers to attempts started since the last pause, and learns nothing from a 429 with nothing admitted", async () => {
    const rate = new AimdController({ max: 4 });
    // The very first attempt meets the limit (the quota was spent before the run): no quota to learn.
    await rate.onRequest();
    rate.onRetry(retry429(1000));
    expect(rate.pace).toBeUndefined();
    // An answer to an attempt sent before the pause (arriving during it) belongs to the old window.
    await vi.advanceTimersByTimeAsync(500);
    rate.onResponse({ status: 200, durationMs: 600 });
    await vi.advanceTimersByTimeAsync(500);
    for (let i = 0; i < 4; i++) await admitted(rate, 10);
    rate.onResponse({ status: 429, durationMs: 10 }); // a 429 is no admission
    rate.onRetry(retry429(2000));
    // 4 admitted (not 5, not 6) per the 2 s Retry-After.
    expect(rate.pace).toEqual({ requests: 4, windowMs: 2100 });
    rate.close();
  });

  it("a 429 despite the pace halves the quota and lowers the learned one; the quota climbs back to it with admitted answers", async () => {
    const rate = new AimdController({ max: 4, onEvent: (e) => events.push(e) });
    for (let i = 0; i < 20; i++) await admitted(rate);
    rate.onRetry(retry429(1000));
    expect(rate.pace?.requests).toBe(20);
    await vi.advanceTimersByTimeAsync(1000);
    await admitted(rate);
    // At the learned quota and still limited: it was too high by at least 10%.
    rate.onRetry(retry429(1000));
    expect(rate.stats().pace).toEqual({ requests: 18, windowMs: 1050 });
    expect(rate.pace?.requests).toBe(9);
    for (let i = 0; i < 5; i++) await admitted(rate);
    expect(rate.pace?.requests).toBe(13); // 9 + 5 × 0.9
    for (let i = 0; i < 20; i++) await admitted(rate);
    expect(rate.pace?.requests).toBe(18);
    // Only the first 429 announces a pace; the learned quota never rises again.
    expect(events.filter((e) => e.kind === "pace")).toHaveLength(1);
    rate.close();
  });

  it("the learned quota never falls below half the first estimate, however many 429s come at full pace (faults)", async () => {
    const rate = new AimdController({ max: 4 });
    for (let i = 0; i < 20; i++) await admitted(rate);
    rate.onRetry(retry429(1000));
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 30; i++) await admitted(rate);
      rate.onRetry(retry429(1000));
    }
    expect(rate.stats().pace).toEqual({ requests: 10, windowMs: 1050 });
    rate.close();
  });

  it("an attempt waits only for the oldest start of its window to leave it, and an idle spell saves up no more than the quota", async () => {
    const rate = new AimdController({ max: 4 });
    for (let i = 0; i < 3; i++) await admitted(rate);
    rate.onRetry(retry429(1000)); // 3 per 1050 ms
    const t0 = Date.now();
    await vi.advanceTimersByTimeAsync(1050);
    const at = async () => {
      await rate.onRequest();
      return Date.now() - t0;
    };
    expect(await at()).toBe(1050);
    await vi.advanceTimersByTimeAsync(300);
    expect(await at()).toBe(1350);
    await vi.advanceTimersByTimeAsync(300);
    expect(await at()).toBe(1650);
    // The fourth in 1050 ms waits for the first to leave the window (2100), not for a whole window from the third.
    const fourth = attempts(rate, 1);
    await vi.advanceTimersByTimeAsync(449);
    expect(fourth).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fourth).toEqual([450]);
    // Idle for 5 s: three at once, the fourth a window later.
    await vi.advanceTimersByTimeAsync(5000);
    const afterIdle = attempts(rate, 4);
    await vi.advanceTimersByTimeAsync(1050);
    expect(afterIdle).toEqual([0, 0, 0, 1050]);
    rate.close();
  });

  it("an aborted export stops holding attempts at once", async () => {
    const controller = new AbortController();
    const rate = new AimdController({ max: 4, signal: controller.signal });
    rate.onRetry(retry429(30_000));
    const started = attempts(rate, 2);
    await vi.advanceTimersByTimeAsync(10);
    expect(started).toEqual([]);
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual([10, 10]);
    rate.close();
  });
});

describe("AimdController with a rate budget (adaptive: false)", () => {
  it("counts the 429s but neither pauses, halves nor paces: the budget does, for every process sharing it", async () => {
    const rate = new AimdController({ max: 4, adaptive: false, onEvent: (e) => events.push(e) });
    for (let i = 0; i < 4; i++) await rate.acquire();
    for (let i = 0; i < 3; i++) rate.onResponse({ status: 200, durationMs: 5 });
    rate.onRetry(retry429(1000));
    rate.rateLimited(2000);
    expect(events).toEqual([]);
    expect(rate.stats()).toEqual({ rateLimited: 2, pauses: 0, minLimit: 4, limit: 4, pace: null });
    expect(rate.pausedUntil).toBeLessThanOrEqual(Date.now());
    // A fifth request waits for a slot only: the first one freed lets it start, with no pause in between.
    const granted = contenders(rate, 1);
    rate.release(true);
    await Promise.resolve();
    expect(granted).toEqual([0]);
    // The client's onRequest hook holds no attempt back.
    let started = false;
    void rate.onRequest().then(() => (started = true));
    await Promise.resolve();
    expect(started).toBe(true);
  });
});
