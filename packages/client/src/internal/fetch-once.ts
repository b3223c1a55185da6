import type { FetchLike } from "../core/options.js";

/**
 * Calls `fetchImpl(request)` and rejects with the signal's reason as soon as
 * `signal` aborts, even where the platform lost the link: Node's fetch holds
 * the caller's Request (and so its signal) only weakly, and after a garbage
 * collection an abort or a timeout would never reach a request still waiting
 * for headers (nodejs/node#55428).
 */
export async function fetchUntilAborted(fetchImpl: FetchLike, request: Request, signal: AbortSignal): Promise<Response> {
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([fetchImpl(request), aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
    // Referenced until fetch settles, so the request and its signal stay alive.
    void request.signal;
  }
}
