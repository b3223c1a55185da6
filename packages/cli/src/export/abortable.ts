import { FdxAbortError } from "@fdxkit/client";

/*
 * The SDK passes the caller's signal to fetch, but on Node 20 a garbage
 * collection can cut a Request's signal off from the signal it follows
 * (nodejs/node#55428): the abort then never reaches the connection. Ctrl-C
 * must stop an export whatever the runtime does, so the export also enforces
 * the signal itself, on the wait for a response and on the body.
 */

function abortReason(signal: AbortSignal): FdxAbortError {
  return new FdxAbortError("The download was cancelled", { cause: signal.reason });
}

/**
 * Settles like `promise`, or rejects with FdxAbortError as soon as `signal`
 * aborts. A value that arrives after the abort goes to `discard` (e.g. to
 * cancel a response body nobody will read).
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, discard: (late: T) => void): Promise<T> {
  if (signal.aborted) {
    promise.then(discard, () => undefined);
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const onAbort = () => {
      if (settled) return;
      settled = true;
      reject(abortReason(signal));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        if (settled) discard(value);
        else {
          settled = true;
          resolve(value);
        }
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        if (!settled) {
          settled = true;
          reject(error);
        }
      },
    );
  });
}

/**
 * `body`, passed through chunk by chunk, that errors with FdxAbortError (and
 * cancels `body`, releasing the connection) as soon as `signal` aborts, even
 * while a read is pending.
 */
export function abortableBody(body: ReadableStream<Uint8Array>, signal: AbortSignal): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let onAbort: (() => void) | undefined;
  const detach = () => {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        onAbort = () => {
          try {
            controller.error(abortReason(signal));
          } catch {
            // Already closed or errored.
          }
          reader.cancel(signal.reason).catch(() => undefined);
        };
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      },
      async pull(controller) {
        let result: ReadableStreamReadResult<Uint8Array>;
        try {
          result = await reader.read();
        } catch (error) {
          detach();
          try {
            controller.error(signal.aborted ? abortReason(signal) : error);
          } catch {
            // Errored by the abort already.
          }
          return;
        }
        if (signal.aborted) return; // errored by onAbort
        if (result.done) {
          detach();
          controller.close();
        } else controller.enqueue(result.value);
      },
      cancel(reason) {
        detach();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
