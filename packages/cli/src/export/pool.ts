/** What bounds the work in flight: a fixed count, or the rate-limit controller's changing limit. */
export interface Gate {
  /** Resolves when one more item may start; rejects when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** The item is done; `ok` when its request succeeded. */
  release(ok: boolean): void;
}

/**
 * Runs `work` on the items of `source` with `workers` workers, each taking a
 * slot of `gate` before it pulls an item and keeping it while it works on
 * it, so the pulling (a lazy source such as a paginator requests its next
 * page then) and the work both count against the gate's limit. Stops pulling
 * once `signal` aborts. An error from the source ends the pulling and is
 * returned (the work in flight still completes); `work` must not throw and
 * resolves with whether its request succeeded.
 */
export async function runPool<T>(
  source: AsyncIterator<T>,
  workers: number,
  gate: Gate,
  work: (item: T) => Promise<boolean>,
  signal: AbortSignal,
): Promise<{ sourceError?: unknown }> {
  let sourceError: { error: unknown } | undefined;
  let exhausted = false;
  const worker = async () => {
    while (!exhausted && !sourceError && !signal.aborted) {
      try {
        await gate.acquire(signal);
      } catch {
        return; // aborted while waiting
      }
      let ok = false;
      try {
        let next: IteratorResult<T>;
        try {
          // Async generators queue concurrent next() calls: each worker gets its own item.
          next = await source.next();
        } catch (error) {
          if (!signal.aborted) sourceError ??= { error };
          return;
        }
        if (next.done) {
          exhausted = true;
          return;
        }
        if (signal.aborted) return;
        ok = await work(next.value);
      } finally {
        gate.release(ok);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  if (!exhausted) await source.return?.().catch(() => undefined);
  return sourceError ? { sourceError: sourceError.error } : {};
}
