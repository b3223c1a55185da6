// The abort and timer helpers (internal/abort.ts), on their own: what each
// hands back, with which reason, and the fallback for platforms without
// AbortSignal.any.
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FdxAbortError } from "../../src/index.js";
import { abortError, anySignal, onAbort, raceAbort, sleep, startAttempt } from "../../src/internal/abort.js";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/** What a platform without AbortSignal.any (Safari before 17.4, say) has. */
const withoutAbortSignalAny = () => vi.stubGlobal("AbortSignal", Object.assign(Object.create(AbortSignal), { any: undefined }));
const listenersOn = (signal: AbortSignal) => getEventListeners(signal, "abort").length;

describe("abortError", () => {
  it("is an FdxAbortError whose cause is the signal's reason", () => {
    const controller = new AbortController();
    const reason = new Error("user left");
    controller.abort(reason);
    const error = abortError(controller.signal);
    expect(error).toBeInstanceOf(FdxAbortError);
    expect(error.cause).toBe(reason);
  });
});

describe("onAbort", () => {
  it("calls the listener once when the signal aborts, and not after it stopped listening", () => {
    const a = new AbortController();
    const heard = vi.fn();
    onAbort(a.signal, heard);
    a.abort();
    a.abort();
    expect(heard).toHaveBeenCalledTimes(1);

    const b = new AbortController();
    const unheard = vi.fn();
    onAbort(b.signal, unheard)();
    b.abort();
    expect(unheard).not.toHaveBeenCalled();
  });

  it("puts no listener on the caller's signal, however many calls share it", () => {
    const shared = new AbortController();
    const heard = vi.fn();
    for (let i = 0; i < 50; i++) onAbort(shared.signal, heard);
    expect(listenersOn(shared.signal)).toBe(0);
    shared.abort();
    expect(heard).toHaveBeenCalledTimes(50);
  });

  it("without AbortSignal.any, listens on the caller's signal itself: once, and gone after it fired or was stopped", () => {
    withoutAbortSignalAny();
    const a = new AbortController();
    const heard = vi.fn();
    onAbort(a.signal, heard);
    expect(listenersOn(a.signal)).toBe(1);
    a.abort();
    expect(heard).toHaveBeenCalledTimes(1);
    expect(listenersOn(a.signal)).toBe(0);

    const b = new AbortController();
    onAbort(b.signal, heard)();
    expect(listenersOn(b.signal)).toBe(0);
  });

  it("calls the listener at once for a signal that already aborted, and does nothing without a signal", () => {
    const heard = vi.fn();
    onAbort(AbortSignal.abort(), heard);
    expect(heard).toHaveBeenCalledTimes(1);
    expect(() => onAbort(undefined, heard)()).not.toThrow();
    expect(heard).toHaveBeenCalledTimes(1);
  });
});

describe("anySignal", () => {
  it("is the own signal when there is no caller's", () => {
    const own = new AbortController().signal;
    expect(anySignal(undefined, own)).toBe(own);
  });

  it.each([
    ["with AbortSignal.any", false],
    ["without AbortSignal.any (older platforms)", true],
  ])("aborts with whichever aborts first, and its reason, %s", (_, stub) => {
    if (stub) withoutAbortSignalAny();
    const caller = new AbortController();
    const own = new AbortController();
    const combined = anySignal(caller.signal, own.signal);
    expect(combined.aborted).toBe(false);
    caller.abort("caller's reason");
    expect(combined.aborted).toBe(true);
    expect(combined.reason).toBe("caller's reason");

    const caller2 = new AbortController();
    const own2 = new AbortController();
    const combined2 = anySignal(caller2.signal, own2.signal);
    own2.abort("own reason");
    expect(combined2.reason).toBe("own reason");
  });
});

describe("anySignal: listeners", () => {
  it("with AbortSignal.any, puts no listener on either signal", () => {
    const caller = new AbortController();
    const own = new AbortController();
    anySignal(caller.signal, own.signal);
    expect([listenersOn(caller.signal), listenersOn(own.signal)]).toEqual([0, 0]);
  });

  it("without AbortSignal.any, each listener goes once the signal it is on aborts", () => {
    withoutAbortSignalAny();
    const caller = new AbortController();
    const own = new AbortController();
    const combined = anySignal(caller.signal, own.signal);
    expect([listenersOn(caller.signal), listenersOn(own.signal)]).toEqual([1, 1]);
    caller.abort("caller's reason");
    own.abort("own reason");
    expect([listenersOn(caller.signal), listenersOn(own.signal)]).toEqual([0, 0]);
    expect(combined.reason).toBe("caller's reason");
  });
});

describe("raceAbort", () => {
  it("is the promise itself without a signal", () => {
    const promise = Promise.resolve(1);
    expect(raceAbort(promise, undefined)).toBe(promise);
  });

  it("settles like the promise while the signal stays quiet", async () => {
    const signal = new AbortController().signal;
    await expect(raceAbort(Promise.resolve("v"), signal)).resolves.toBe("v");
    await expect(raceAbort(Promise.reject(new Error("no")), signal)).rejects.toThrow("no");
  });

  it("rejects with FdxAbortError as soon as the signal aborts, the promise still pending", async () => {
    const controller = new AbortController();
    const raced = raceAbort(new Promise(() => {}), controller.signal);
    controller.abort("stop");
    const error = await raced.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxAbortError);
    expect((error as FdxAbortError).cause).toBe("stop");
  });
});

describe("sleep", () => {
  it("rejects with FdxAbortError when the signal aborts during the wait", async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort("enough");
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxAbortError);
    expect((error as FdxAbortError).cause).toBe("enough");
  });
});

describe("startAttempt", () => {
  it("on timeout: timedOut, stopped and race reject, both with a TimeoutError", async () => {
    vi.useFakeTimers();
    const attempt = startAttempt(undefined, 1_000);
    const raced = attempt.race(new Promise(() => {})).catch((e: unknown) => e);
    const stopped = attempt.stopped.catch((e: unknown) => e);
    expect(attempt.timedOut).toBe(false);
    await vi.advanceTimersByTimeAsync(999);
    expect(attempt.timedOut).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(attempt.timedOut).toBe(true);
    const reason = (await stopped) as DOMException;
    expect(reason).toBeInstanceOf(DOMException);
    expect([reason.name, reason.message]).toEqual(["TimeoutError", "The attempt timed out"]);
    expect(await raced).toBe(reason);
  });

  it("end() stops the timeout", async () => {
    vi.useFakeTimers();
    const attempt = startAttempt(undefined, 1_000);
    let stopped = false;
    attempt.stopped.catch(() => (stopped = true));
    attempt.end();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(attempt.timedOut).toBe(false);
    expect(stopped).toBe(false);
  });

  it("end() stops following the caller's signal", async () => {
    const caller = new AbortController();
    const attempt = startAttempt(caller.signal, 60_000);
    let stopped = false;
    attempt.stopped.catch(() => (stopped = true));
    attempt.end();
    caller.abort("late");
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stopped).toBe(false);
  });

  it("follows the caller's signal, even one that already aborted", async () => {
    const caller = new AbortController();
    const attempt = startAttempt(caller.signal, 60_000);
    const raced = attempt.race(new Promise(() => {})).catch((e: unknown) => e);
    caller.abort("caller stopped");
    expect(await raced).toBe("caller stopped");
    expect(await attempt.stopped.catch((e: unknown) => e)).toBe("caller stopped");
    expect(attempt.timedOut).toBe(false);
    attempt.end();

    const early = startAttempt(AbortSignal.abort("before"), 60_000);
    expect(await early.race(new Promise(() => {})).catch((e: unknown) => e)).toBe("before");
    early.end();
  });

  it("race settles like its step while the attempt runs", async () => {
    const attempt = startAttempt(undefined, 60_000);
    expect(await attempt.race(Promise.resolve("answer"))).toBe("answer");
    expect(await attempt.race(Promise.reject(new Error("refused"))).catch((e: unknown) => (e as Error).message)).toBe("refused");
    attempt.end();
  });

  it("not raced (a sender that ends its own steps): race hands each step back as it is, even after the attempt stopped", async () => {
    const caller = new AbortController();
    const attempt = startAttempt(caller.signal, 60_000, false);
    const step = Promise.resolve("answer");
    expect(attempt.race(step)).toBe(step);
    caller.abort("caller stopped");
    expect(await attempt.stopped.catch((e: unknown) => e)).toBe("caller stopped");
    expect(await attempt.race(Promise.resolve("late answer"))).toBe("late answer");
    attempt.end();
  });
});
