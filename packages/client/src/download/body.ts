import { FdxConnectionError, FdxError } from "../core/errors/index.js";
import { abortError } from "../internal/sleep.js";

/**
 * The error for a body that failed after the headers arrived: the caller's
 * abort, or a connection cut mid-body. Platform errors (`TypeError:
 * terminated`, `DOMException`) never reach the caller.
 */
export function bodyError(cause: unknown, signal: AbortSignal | undefined, url: string): FdxError {
  if (signal?.aborted) return abortError(signal);
  if (cause instanceof FdxError) return cause;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new FdxConnectionError(`GET ${url}: the response body was cut off (${reason})`, { cause });
}

/**
 * Passes the response stream through chunk by chunk (nothing is read ahead
 * or buffered here) and turns its errors into `FdxError`s. Cancelling the
 * returned stream cancels the response.
 */
export function guardBody(
  source: ReadableStream<Uint8Array> | null,
  signal: AbortSignal | undefined,
  url: string,
): ReadableStream<Uint8Array> {
  if (!source) return new ReadableStream({ start: (controller) => controller.close() });
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let result: ReadableStreamReadResult<Uint8Array>;
        try {
          result = await reader.read();
        } catch (cause) {
          controller.error(bodyError(cause, signal, url));
          return;
        }
        if (result.done) controller.close();
        else controller.enqueue(result.value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    // Pull only when the consumer reads: the SDK holds no chunk of its own.
    { highWaterMark: 0 },
  );
}
