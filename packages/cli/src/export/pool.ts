import { raceAbort } from "./abortable.js";

/**
 * Runs `work` on the items of `source` with at most `concurrency` at a time,
 * pulling the next item only when a worker is free (so a lazy source, such as
 * a paginator, is read no further ahead than the work needs). Stops pulling
 * once `stopped()` says so. An error from the source ends the pulling and is
 * returned (the work in flight still completes); `work` must not throw.
 */
export async function runPool<T>(
  source: AsyncIterator<T>,
  concurrency: number,
  work: (item: T) => Promise<void>,
  stopped: () => boolean,
  /** Stops waiting for the source at once when it aborts (the source may not notice). */
  abort?: AbortSignal,
): Promise<{ sourceError?: unknown }> {
  let sourceError: { error: unknown } | undefined;
  let exhausted = false;
  const worker = async () => {
    while (!exhausted && !sourceError && !stopped()) {
      let next: IteratorResult<T>;
      try {
        // Async generators queue concurrent next() calls: each worker gets its own item.
        next = await (abort ? raceAbort(source.next(), abort, () => undefined) : source.next());
      } catch (error) {
        if (!abort?.aborted) sourceError ??= { error };
        return;
      }
      if (next.done) {
        exhausted = true;
        return;
      }
      if (stopped()) return;
      await work(next.value);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  // Not awaited: after an abort a page request may still be pending, and return() would queue behind it.
  if (!exhausted) source.return?.().catch(() => undefined);
  return sourceError ? { sourceError: sourceError.error } : {};
}
