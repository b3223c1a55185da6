// Every response body the SDK reads is bounded, after decompression: a JSON
// answer by readText (size, within the attempt's timeout), a download's
// stream by guardBody (size, and each stall between chunks).
import { FdxConnectionError, FdxError, FdxResponseError, FdxTimeoutError } from "../core/error.js";
import { redactCause, redactText } from "../core/redact.js";
import { abortError, noop, onAbort } from "./abort.js";
import { concat, readBounded } from "./bounded-read.js";
import type { Reply, ReplyBody } from "./types.js";

/** Thrown by {@link readText} when the body passes its limit; reading stopped there. */
export class BodyTooLarge extends Error {}

/**
 * The body as text, read chunk by chunk and counted after decompression:
 * past `limit` bytes reading stops (the rest is cancelled) and, when
 * `truncate` is given, the first `limit` bytes are returned as text passed
 * through it (the request path drops a secret the cut split: see
 * `dropCutSecret`); otherwise `BodyTooLarge` is thrown.
 */
export async function readText(response: Reply, limit: number, truncate?: (text: string) => string): Promise<string> {
  const body = response.body;
  if (!body) return "";
  const { chunks, bytes, over } = await readBounded(body.getReader(), limit);
  if (!over) return decode(chunks, bytes);
  if (!truncate) throw new BodyTooLarge();
  return truncate(decode(chunks, bytes));
}

/**
 * Decoded once, at the end, with one shared decoder: most JSON answers are a
 * single chunk, and a streaming decoder per call cost more than the copy.
 */
function decode(chunks: Uint8Array[], bytes: number): string {
  // Stryker disable next-line ConditionalExpression: the general path decodes the same bytes; this only saves a copy
  if (chunks.length === 1) return utf8.decode(chunks[0]);
  return utf8.decode(concat(chunks, bytes));
}

const utf8 = new TextDecoder();

/** What a download's body is held to, and what its errors say. */
export interface BodyLimits {
  /** The caller's signal: it cancels the body for as long as it streams. */
  signal: AbortSignal | undefined;
  /** The download's URL (for messages; redacted of `secrets`). */
  url: string;
  status: number;
  interactionId: string | undefined;
  /** Bytes the body may have, counted after decompression (`maxDownloadBytes`). */
  maxBytes: number;
  /** How long one wait for the next chunk may last (`timeoutMs`). */
  stallMs: number;
  /** What no error may show: the token sent. */
  secrets: () => readonly string[];
}

/**
 * The error for a body that failed after the headers arrived: the caller's
 * abort, or a connection cut mid-body. Platform errors (`TypeError:
 * terminated`, `DOMException`) never reach the caller.
 */
function bodyError(cause: unknown, limits: BodyLimits): FdxError {
  if (limits.signal?.aborted) return abortError(limits.signal);
  if (cause instanceof FdxError) return cause;
  const s = limits.secrets();
  const reason = cause instanceof Error ? cause.message : String(cause);
  const message = redactText(`GET ${limits.url}: the response body was cut off (${reason})`, s);
  return new FdxConnectionError(message, { cause: redactCause(cause, s), interactionId: limits.interactionId });
}

/**
 * Passes the response stream through chunk by chunk (nothing is read ahead
 * or buffered here), holds it to its limits, and turns its errors into
 * `FdxError`s: past `maxBytes` (after decompression: a gzip bomb is stopped
 * where it swells) the stream errors with `FdxResponseError`, and a wait for
 * the next chunk longer than `stallMs` errors it with `FdxTimeoutError`; the
 * response is cancelled either way. Only the waits count: a consumer that
 * reads slowly is never timed out. Cancelling the returned stream cancels the
 * response.
 */
export function guardBody(source: ReplyBody | null, limits: BodyLimits): ReadableStream<Uint8Array> {
  if (!source) return new ReadableStream({ start: (controller) => controller.close() });
  const { signal } = limits;
  const reader = source.getReader();
  // The caller's signal is listened to here, for the life of the body,
  // rather than trusted to the fetch's own: a custom fetch may have dropped
  // the Request that carried it.
  const release = onAbort(signal, () => void reader.cancel(signal?.reason).catch(noop));
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let bytes = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const end = () => {
    clearTimeout(timer);
    release();
  };
  const stop = (error: FdxError) => {
    end();
    void reader.cancel(error).catch(noop);
    controller.error(error);
  };
  const fail = (cause: unknown) => {
    end();
    controller.error(bodyError(cause, limits));
  };
  // Plain callbacks made once, not an async pull: one promise per chunk (the read's), no closure per chunk.
  const stalled = () => stop(new FdxTimeoutError(redactText(`GET ${limits.url}: the body stalled for ${limits.stallMs} ms`, limits.secrets()), limits));
  const forward = (result: ReadableStreamReadResult<Uint8Array>) => {
    clearTimeout(timer);
    // A cancelled read ends as `done`: that is an abort, not the end of the document.
    if (signal?.aborted) fail(signal.reason);
    else if (result.done) {
      end();
      controller.close();
    } else if ((bytes += result.value.byteLength) > limits.maxBytes) {
      stop(new FdxResponseError(limits.status, [{ path: "", message: `the document is larger than maxDownloadBytes (${limits.maxBytes} bytes)` }], limits));
    } else controller.enqueue(result.value);
  };
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      pull: () => {
        // Only the body's waits are timed: a pull happens when the consumer reads, so a slow consumer is never timed out.
        timer = setTimeout(stalled, limits.stallMs);
        return reader.read().then(forward, fail);
      },
      cancel: (reason) => {
        end();
        return reader.cancel(reason);
      },
    },
    // Pull only when the consumer reads: the SDK holds no chunk of its own.
    { highWaterMark: 0 },
  );
}
