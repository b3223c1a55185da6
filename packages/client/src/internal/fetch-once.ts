/**
 * Settles with `pending`, or rejects with the signal's reason as soon as
 * `signal` aborts, even where the platform lost the link: Node's fetch holds
 * a caller's Request (and so its signal) only weakly, and after a garbage
 * collection an abort or a timeout would never reach a request still waiting
 * for headers (nodejs/node#55428). `keepAlive` is held until then for the
 * same reason.
 */
export async function settleOnAbort<T>(pending: Promise<T>, signal: AbortSignal, keepAlive?: unknown): Promise<T> {
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([pending, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
    void keepAlive;
  }
}
