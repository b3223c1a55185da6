// Abort and timer handling, in one place: the request path, the paginator,
// the download body and retry waits all use these (and nothing else does it
// by hand).
import { FdxAbortError } from "../core/error.js";

/** Does nothing: a rejection handler for what is let go (a cancel, a prefetch no one waits for). */
export const noop = (): void => {};

/** The error for the caller's abort; the signal's reason is its `cause`. */
export function abortError(signal: AbortSignal): FdxAbortError {
  return new FdxAbortError(undefined, { cause: signal.reason });
}

/**
 * Calls `listener` once when `signal` aborts (at once if it already has);
 * returns the function that stops listening. The listener goes on a signal
 * of our own that follows the caller's (`AbortSignal.any`), never on the
 * caller's signal itself: fifty calls sharing one signal would otherwise
 * pile fifty listeners on it (Node warns past ten). The returned function
 * holds that signal, so it lives as long as someone may still stop it.
 */
export function onAbort(signal: AbortSignal | undefined, listener: () => void): () => void {
  if (!signal) return noop;
  if (signal.aborted) {
    listener();
    return noop;
  }
  const own = typeof AbortSignal.any === "function" ? AbortSignal.any([signal]) : signal;
  own.addEventListener("abort", listener, { once: true });
  return () => own.removeEventListener("abort", listener);
}

/** One signal that aborts with either of two, with no listener left on the caller's. */
export function anySignal(caller: AbortSignal | undefined, own: AbortSignal): AbortSignal {
  if (!caller) return own;
  if (typeof AbortSignal.any === "function") return AbortSignal.any([caller, own]);
  const controller = new AbortController();
  const forward = (signal: AbortSignal) => () => controller.abort(signal.reason);
  caller.addEventListener("abort", forward(caller), { once: true });
  own.addEventListener("abort", forward(own), { once: true });
  return controller.signal;
}

/** Waits `ms`, rejecting at once with `FdxAbortError` when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = onAbort(signal, () => {
      clearTimeout(timer);
      reject(abortError(signal!));
    });
    const timer = setTimeout(() => {
      stop();
      resolve();
    }, ms);
  });
}

/**
 * Settles like `promise`, or rejects with `FdxAbortError` as soon as `signal`
 * aborts (for waits no timer covers, such as the token function).
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const stop = onAbort(signal, () => reject(abortError(signal)));
    promise.then(resolve, reject).finally(stop);
  });
}

/**
 * The limits of one HTTP attempt: its timeout and the caller's signal.
 *
 * `stopped` rejects when either fires; the sender stops its request then
 * (fetch through a signal of its own, Node's transport by destroying it).
 * `race` settles a step of the attempt (the wait for headers, the body read)
 * as soon as either fires, whether or not the platform noticed: a custom
 * fetch may drop the `Request` it was given, and Node's fetch then loses the
 * link from its signal after a garbage collection and never aborts
 * (nodejs/node#55428).
 */
export interface Attempt {
  /** Rejects with the reason when the timeout fires or the caller aborts. */
  readonly stopped: Promise<never>;
  /** Whether the timeout fired. */
  readonly timedOut: boolean;
  /** Settles like `step`, or rejects as soon as the attempt stops (or only like `step`, when the attempt's sender ends its steps itself). */
  race<T>(step: Promise<T>): Promise<T>;
  /** Ends the timeout (a download's headers arrived) and stops listening; the connection stays open. */
  end(): void;
}

const pass = <T>(step: Promise<T>): Promise<T> => step;

/**
 * Starts an attempt's limits. `raced` false: the sender ends every step
 * itself when the attempt stops, so `race` passes each step through.
 */
export function startAttempt(caller: AbortSignal | undefined, timeoutMs: number, raced = true): Attempt {
  let stop!: (reason: unknown) => void;
  const stopped = new Promise<never>((_, reject) => (stop = reject));
  stopped.catch(noop);
  const attempt = {
    stopped,
    timedOut: false,
    race: raced ? <T>(step: Promise<T>): Promise<T> => Promise.race([step, stopped]) : pass,
    end() {
      clearTimeout(timer);
      unlisten();
    },
  };
  const timer = setTimeout(() => {
    attempt.timedOut = true;
    stop(new DOMException("The attempt timed out", "TimeoutError"));
  }, timeoutMs);
  const unlisten = onAbort(caller, () => stop(caller!.reason));
  return attempt;
}
