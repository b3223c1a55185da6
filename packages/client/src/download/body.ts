import { FdxConnectionError, FdxError } from "../core/error.js";
import { abortError, onAbort } from "../internal/abort.js";

/**
 * The error for a body that failed after the headers arrived: the caller's
 * abort, or a connection cut mid-body. Platform errors (`TypeError:
 * terminated`, `DOMException`) never reach the caller.
 */
function bodyError(cause: unknown, signal: AbortSignal | undefined, url: string, interactionId?: string): FdxError {
  if (signal?.aborted) return abortError(signal);
  if (cause instanceof FdxError) return cause;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new FdxConnectionError(`GET ${url}: the response body was cut off (${reason})`, { cause, interactionId });
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
  interactionId?: string,
): ReadableStream<Uint8Array> {
  if (!source) return new ReadableStream({ start: (controller) => controller.close() });
  const reader = source.getReader();
  // The caller's signal is listened to here, for the life of the body,
  // rather than trusted to the fetch's own: a custom fetch may have dropped
  // the Request that carried it.
  const release = onAbort(signal, () => void reader.cancel(signal?.reason).catch(() => undefined));
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  // Plain callbacks made once, not an async pull: one promise per chunk (the read's), no closure per chunk.
  const fail = (cause: unknown) => {
    release();
    controller.error(bodyError(cause, signal, url, interactionId));
  };
  const forward = (result: ReadableStreamReadResult<Uint8Array>) => {
    // A cancelled read ends as `done`: that is an abort, not the end of the document.
    if (signal?.aborted) fail(signal.reason);
    else if (result.done) {
      release();
      controller.close();
    } else controller.enqueue(result.value);
  };
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      pull: () => reader.read().then(forward, fail),
      cancel: (reason) => {
        release();
        return reader.cancel(reason);
      },
    },
    // Pull only when the consumer reads: the SDK holds no chunk of its own.
    { highWaterMark: 0 },
  );
}
