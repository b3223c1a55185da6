import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FdxAbortError, FdxValidationError } from "../../src/core/error.js";
import { memoryRateBudget } from "../../src/rate-budget/memory.js";

/** The order in which takes resolve, by label, and at what fake time. */
function recorder() {
  const order: Array<[string, number]> = [];
  const start = performance.now();
  const track = (label: string, promise: Promise<void>) => promise.then(() => void order.push([label, Math.round(performance.now() - start)]));
  return { order, track, labels: () => order.map(([label]) => label) };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance", "Date"] });
});
afterEach(() => {
  // The spy on setTimeout goes first: left wrapping the fake one, it would outlive the fake clock, and no later
  // timer of a file that shares this worker would fire.
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("memoryRateBudget", () => {
  it("lets a burst go at once, then one request per 1/perSecond", async () => {
    const budget = memoryRateBudget({ limits: { bank: { perSecond: 10, burst: 2, userReserve: 0 } } });
    const { order, track } = recorder();
    const all = ["a", "b", "c", "d"].map((label) => track(label, budget.take("bank", "user")));
    await vi.advanceTimersByTimeAsync(250);
    await Promise.all(all);
    expect(order).toEqual([
      ["a", 0],
      ["b", 0],
      ["c", 100],
      ["d", 200],
    ]);
  });

  it("serves user calls before batch calls that were waiting first", async () => {
    const budget = memoryRateBudget({ limits: { bank: { perSecond: 10, burst: 1, userReserve: 0 } } });
    await budget.take("bank", "user");
    const { track, labels } = recorder();
    const all = [track("batch-1", budget.take("bank", "batch")), track("batch-2", budget.take("bank", "batch")), track("user-1", budget.take("bank", "user"))];
    await vi.advanceTimersByTimeAsync(400);
    await Promise.all(all);
    expect(labels()).toEqual(["user-1", "batch-1", "batch-2"]);
  });

  it("keeps the user reserve from batch calls: users still go at once after a batch burst", async () => {
    const budget = memoryRateBudget({ limits: { bank: { perSecond: 1, burst: 5 } } }); // reserve: a fifth of 5
    const { order, track } = recorder();
    const batch = Array.from({ length: 5 }, (_, i) => track(`batch-${i}`, budget.take("bank", "batch")));
    await vi.advanceTimersByTimeAsync(0);
    expect(order.map(([l]) => l)).toEqual(["batch-0", "batch-1", "batch-2", "batch-3"]);
    await track("user", budget.take("bank", "user"));
    expect(order.at(-1)).toEqual(["user", 0]);
    await vi.advanceTimersByTimeAsync(3000);
    await Promise.all(batch);
    // The fifth batch call waited until the bucket held more than the reserve again.
    expect(order.at(-1)![0]).toBe("batch-4");
    expect(order.at(-1)![1]).toBeGreaterThanOrEqual(1000);
  });

  it("holds a provider after pause(), for every actor, and only that provider", async () => {
    const budget = memoryRateBudget({ default: { perSecond: 100 } });
    await budget.pause("bank", 500);
    const { order, track } = recorder();
    const all = [track("bank-user", budget.take("bank", "user")), track("other", budget.take("other", "batch"))];
    await vi.advanceTimersByTimeAsync(600);
    await Promise.all(all);
    expect(order[0]).toEqual(["other", 0]);
    expect(order[1]![0]).toBe("bank-user");
    expect(order[1]![1]).toBeGreaterThanOrEqual(500);
  });

  it("rejects a take whose signal aborts, and lets the calls behind it go", async () => {
    const budget = memoryRateBudget({ limits: { bank: { perSecond: 10, burst: 1, userReserve: 0 } } });
    await budget.take("bank", "user");
    const controller = new AbortController();
    const aborted = budget.take("bank", "user", controller.signal);
    const { order, track } = recorder();
    const batch = track("batch", budget.take("bank", "batch"));
    controller.abort(new Error("page closed"));
    await expect(aborted).rejects.toBeInstanceOf(FdxAbortError);
    await expect(aborted).rejects.toMatchObject({ cause: { message: "page closed" } });
    await vi.advanceTimersByTimeAsync(150);
    await batch;
    expect(order).toEqual([["batch", 100]]);
    const already = new AbortController();
    already.abort();
    await expect(budget.take("bank", "user", already.signal)).rejects.toBeInstanceOf(FdxAbortError);
  });

  it("does not limit a provider with no limit and no default", async () => {
    const budget = memoryRateBudget({ limits: { bank: { perSecond: 1 } } });
    const { order, track } = recorder();
    await Promise.all(Array.from({ length: 50 }, () => track("free", budget.take("other", "batch"))));
    expect(order).toHaveLength(50);
    expect(order.every(([, at]) => at === 0)).toBe(true);
  });

  it("refuses limits and arguments that make no sense, with every issue named", async () => {
    expect(() => memoryRateBudget({ limits: { bank: { perSecond: 0 } }, default: { perSecond: 5, burst: 5, userReserve: 5 } })).toThrow(FdxValidationError);
    try {
      memoryRateBudget({ limits: { bank: { perSecond: 0 } }, default: { perSecond: 5, burst: 5, userReserve: 5 } });
    } catch (error) {
      expect((error as FdxValidationError).issues).toEqual([
        { path: "limits.bank.perSecond", message: "must be a finite number > 0" },
        { path: "default.userReserve", message: "must be a number >= 0 and below burst" },
      ]);
    }
    const budget = memoryRateBudget({});
    await expect(budget.take("", "user")).rejects.toThrow(FdxValidationError);
    await expect(budget.take("bank", "robot" as "user")).rejects.toThrow(/must be "user" or "batch"/);
    await expect(budget.pause("bank", Number.NaN)).rejects.toThrow(FdxValidationError);
  });

  it("waits for the fraction of a token still missing, with one timer, and leaves none behind", async () => {
    const budget = memoryRateBudget({ limits: { bank: { perSecond: 10, burst: 1, userReserve: 0 } } });
    const { order, track } = recorder();
    await track("a", budget.take("bank", "user"));
    await vi.advanceTimersByTimeAsync(50);
    // Half a token is back: the next one is due in 50 ms, not a whole 100.
    const timers = vi.spyOn(globalThis, "setTimeout");
    const b = track("b", budget.take("bank", "user"));
    await vi.advanceTimersByTimeAsync(1000);
    await b;
    expect(order).toEqual([
      ["a", 0],
      ["b", 100],
    ]);
    // One timer for the wait, not a poll every millisecond; none left to keep a process alive.
    expect(timers).toHaveBeenCalledTimes(1);
    expect(timers.mock.calls[0]![1]).toBe(50);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("pause() checks its duration, names what is wrong, and on a provider with no limit does nothing", async () => {
    const budget = memoryRateBudget({ limits: { bank: { perSecond: 1 } } });
    for (const ms of [-1, Number.POSITIVE_INFINITY, Number.NaN, "5" as unknown as number]) {
      await expect(budget.pause("bank", ms)).rejects.toMatchObject({ issues: [{ path: "ms", message: "must be a finite number >= 0" }] });
    }
    await expect(budget.pause("bank", 0)).resolves.toBeUndefined();
    await expect(budget.pause("free", 60_000)).resolves.toBeUndefined();
    const { order, track } = recorder();
    await track("free", budget.take("free", "user"));
    expect(order).toEqual([["free", 0]]);
  });

  it("lets a batch call through a bucket of one whatever the reserve", async () => {
    const budget = memoryRateBudget({ limits: { bank: { perSecond: 10, burst: 1 } } });
    const { order, track } = recorder();
    await track("batch", budget.take("bank", "batch"));
    expect(order).toEqual([["batch", 0]]);
  });
});
