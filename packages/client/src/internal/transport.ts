import { FdxConnectionError, FdxTimeoutError, type FdxError } from "../core/errors/index.js";
import type { FetchLike, RequestOptions, TokenProvider } from "../core/options.js";
import { toApiError } from "./api-error.js";
import { MAX_RETRY_AFTER_MS, backoffMs, isRetryableFailure, isRetryableStatus, parseRetryAfter } from "./retry.js";
import { abortError, sleep } from "./sleep.js";

export interface TransportConfig {
  token: TokenProvider;
  fetch?: FetchLike | typeof globalThis.fetch | undefined;
  timeoutMs: number;
  maxRetries: number;
}

/**
 * The one request pipeline every call goes through: bearer auth, a timeout
 * per attempt (until headers), the caller's signal, retries, and error
 * mapping. Resolves with a 2xx `Response` whose body is unread; anything else
 * rejects with an `FdxError`.
 */
export interface Transport {
  send(request: Request, options?: RequestOptions): Promise<Response>;
  /** `send` bound to per-call options, in the shape openapi-fetch takes as `fetch`. */
  fetchFor(options?: RequestOptions): FetchLike;
}

export function createTransport(config: TransportConfig): Transport {
  const send = async (request: Request, options: RequestOptions = {}): Promise<Response> => {
    const { signal } = options;
    const method = request.method;
    const maxRetries = options.maxRetries ?? config.maxRetries;
    const timeoutMs = options.timeoutMs ?? config.timeoutMs;
    // Read once so every attempt can send the same bytes.
    const body = method === "GET" || method === "HEAD" || request.body === null ? undefined : await request.arrayBuffer();

    for (let retry = 0; ; retry++) {
      if (signal?.aborted) throw abortError(signal);
      const token = await resolveToken(config.token, signal);
      const headers = new Headers(request.headers);
      for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
      headers.set("Authorization", `Bearer ${token}`);

      const outcome = await attempt(config, request, { method, headers, body }, timeoutMs, signal);
      let failure: FdxError;
      let delay: number | undefined;
      if (outcome instanceof Response) {
        if (outcome.ok) return outcome;
        const error = await toApiError(outcome, method, request.url);
        if (!isRetryableStatus(method, error.status)) throw error;
        failure = error;
        delay = parseRetryAfter(outcome.headers.get("retry-after"));
        if (delay !== undefined && delay > MAX_RETRY_AFTER_MS) throw error;
      } else {
        if (!isRetryableFailure(method)) throw outcome;
        failure = outcome;
      }
      if (retry >= maxRetries) throw failure;
      await sleep(delay ?? backoffMs(retry), signal);
    }
  };

  return {
    send,
    fetchFor: (options) => (request) => send(request, options),
  };
}

/** One HTTP attempt: the Response, or the connection/timeout error (aborts by the caller are thrown). */
async function attempt(
  config: TransportConfig,
  request: Request,
  init: { method: string; headers: Headers; body: ArrayBuffer | undefined },
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Response | FdxConnectionError> {
  const controller = new AbortController();
  // The caller's signal stays linked after the headers arrive, so it can still cancel a streaming body.
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);

  // Looked up per call: a fetch patched after the client was made (msw, polyfills) is honoured.
  const fetchImpl = (config.fetch ?? globalThis.fetch) as FetchLike;
  try {
    return await fetchImpl(
      new Request(request.url, {
        method: init.method,
        headers: init.headers,
        body: init.body,
        redirect: request.redirect,
        signal: controller.signal,
      }),
    );
  } catch (cause) {
    if (signal?.aborted) throw abortError(signal);
    signal?.removeEventListener("abort", onAbort);
    if (timedOut) {
      return new FdxTimeoutError(`${init.method} ${request.url} timed out after ${timeoutMs} ms waiting for a response`);
    }
    return new FdxConnectionError(`${init.method} ${request.url} failed: ${describe(cause)}`, { cause });
  } finally {
    clearTimeout(timer);
  }
}

async function resolveToken(token: TokenProvider, signal: AbortSignal | undefined): Promise<string> {
  if (typeof token === "string") return token;
  const value = token();
  if (typeof value === "string") return value;
  if (!signal) return value;
  // The token function is not covered by the timeout, but the caller can still give up on it.
  return await new Promise<string>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    value.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

// The platform error's own message names the cause (ECONNREFUSED, reset) without request headers.
function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as { cause?: unknown }).cause;
    const code = inner && typeof inner === "object" && "code" in inner ? ` (${String((inner as { code: unknown }).code)})` : "";
    return `${cause.message}${code}`;
  }
  return String(cause);
}
