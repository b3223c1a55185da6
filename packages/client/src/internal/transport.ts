import { FdxApiError, FdxConnectionError, FdxError, FdxTimeoutError, FdxValidationError, type FdxIssue } from "../core/errors/index.js";
import type { FetchLike, RequestOptions, TokenProvider } from "../core/options.js";
import { toApiError } from "./api-error.js";
import type { Outgoing } from "./outgoing.js";
import { MAX_RETRY_AFTER_MS, backoffMs, isRetryable, parseRetryAfter } from "./retry.js";
import { anySignal } from "./signals.js";
import { abortError, sleep } from "./sleep.js";

export interface TransportConfig {
  token: TokenProvider;
  fetch?: FetchLike | typeof globalThis.fetch | undefined;
  timeoutMs: number;
  maxRetries: number;
}

/** How the transport hands back a 2xx response. */
export interface SendMode {
  /**
   * Read the whole body inside the attempt. A connection lost mid-body then
   * becomes an `FdxConnectionError` (retried for idempotent methods) instead
   * of a platform error escaping from a later `response.json()`.
   * Leave off for streamed downloads.
   */
  readBody?: boolean;
}

/**
 * A 2xx response whose body was read inside the attempt: `text()` and
 * `json()` answer from the string held. Not a platform `Response`, whose
 * construction on Node costs more than the JSON it would carry; it has what
 * openapi-fetch and the paginator read.
 */
export interface ReadResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly body: null;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/**
 * The one request pipeline every call goes through: bearer auth, a timeout
 * per attempt (until headers), the caller's signal, retries, and error
 * mapping. Resolves with a 2xx response; anything else rejects with an
 * `FdxError`.
 */
export interface Transport {
  send(request: Outgoing, options: RequestOptions | undefined, mode: { readBody: true }): Promise<ReadResponse>;
  send(request: Outgoing, options?: RequestOptions): Promise<Response>;
}

export function createTransport(config: TransportConfig): Transport {
  const send = async (request: Outgoing, options: RequestOptions = {}, mode: SendMode = {}): Promise<Response | ReadResponse> => {
    const { signal } = options;
    const method = request.method;
    const maxRetries = options.maxRetries ?? config.maxRetries;
    const timeoutMs = options.timeoutMs ?? config.timeoutMs;
    const issues = retryTimeoutIssues(options);
    if (issues.length) throw new FdxValidationError(issues);
    // Read once so every attempt can send the same bytes.
    const body =
      method === "GET" || method === "HEAD" || request.body === null
        ? undefined
        : typeof request.body === "string"
          ? request.body
          : await request.arrayBuffer();

    for (let retry = 0; ; retry++) {
      if (signal?.aborted) throw abortError(signal);
      const token = typeof config.token === "string" ? config.token : await resolveToken(config.token, signal);
      const headers = requestHeaders(request.headers, options.headers, token);

      const outcome = await attempt(config, request, { method, headers, body }, timeoutMs, signal, mode.readBody === true);
      if (!(outcome instanceof FdxError)) return outcome;
      const api = outcome instanceof FdxApiError ? outcome : undefined;
      // The server's Retry-After wins over the backoff; asking for longer than MAX_RETRY_AFTER_MS surfaces the error.
      const delay = api && parseRetryAfter(api.headers["retry-after"]);
      if (retry >= maxRetries || !isRetryable(method, api?.status) || (delay ?? 0) > MAX_RETRY_AFTER_MS) throw outcome;
      await sleep(delay ?? backoffMs(retry), signal);
    }
  };

  return { send } as Transport;
}

/**
 * `timeoutMs` and `maxRetries`, of the client (added to its other issues) or
 * of one call: integers >= 0 where given. One check for both places.
 */
export function retryTimeoutIssues(options: { timeoutMs?: unknown; maxRetries?: unknown }, issues: FdxIssue[] = []): FdxIssue[] {
  for (const path of ["timeoutMs", "maxRetries"] as const) {
    const value = options[path];
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0)) issues.push({ path, message: "must be an integer >= 0" });
  }
  return issues;
}

// Header values the platform refuses would otherwise surface as a TypeError
// quoting the value — the token included.
// Set on the request's own headers: every attempt sets the same names again, so nothing is copied.
function requestHeaders(headers: Headers, extra: Record<string, string> | undefined, token: string): Headers {
  if (extra) {
    for (const [name, value] of Object.entries(extra)) {
      try {
        headers.set(name, value);
      } catch {
        throw new FdxValidationError([{ path: `headers.${name}`, message: "is not a valid HTTP header" }]);
      }
    }
  }
  try {
    headers.set("Authorization", `Bearer ${token}`);
  } catch {
    throw new FdxValidationError([{ path: "token", message: "is not a valid HTTP header value" }]);
  }
  return headers;
}

/**
 * One HTTP attempt: the 2xx response (its body read when `readBody`), or the
 * error it ended in. Only an abort by the caller is thrown.
 */
async function attempt(
  config: TransportConfig,
  request: Outgoing,
  init: { method: string; headers: Headers; body: ArrayBuffer | string | undefined },
  timeoutMs: number,
  signal: AbortSignal | undefined,
  readBody: boolean,
): Promise<Response | ReadResponse | FdxError> {
  const { method } = init;
  const url = request.url;
  // One controller per attempt, for the timer. The attempt settles through
  // `stopped`, which the timer and the abort listener reject themselves:
  // Node's fetch holds its signal only weakly, and after a garbage collection
  // an abort may never reach a request still waiting (nodejs/node#55428).
  const controller = new AbortController();
  let stop!: (reason: unknown) => void;
  const stopped = new Promise<never>((_, reject) => (stop = reject));
  stopped.catch(() => undefined);
  let timedOut = false;
  // Combined, not listened to on the caller's signal directly: one signal shared by many calls would pile up listeners.
  const fetchSignal = signal ? anySignal(signal, controller.signal) : controller.signal;
  const onAbort = () => stop(fetchSignal.reason);
  if (signal) {
    if (fetchSignal.aborted) onAbort();
    else fetchSignal.addEventListener("abort", onAbort, { once: true });
  }
  const timer = setTimeout(() => {
    timedOut = true;
    const reason = new DOMException("The attempt timed out", "TimeoutError");
    controller.abort(reason);
    stop(reason);
  }, timeoutMs);

  const fetchInit: RequestInit = { method, headers: init.headers, body: init.body, redirect: request.redirect, signal: fetchSignal };
  let response: Response;
  // Held until the attempt ends, for the same reason as `stopped`.
  let outgoing: Request | undefined;
  try {
    let pending: Promise<Response>;
    if (config.fetch) {
      outgoing = new Request(url, fetchInit);
      pending = (config.fetch as FetchLike)(outgoing);
    } else {
      // Looked up per call, so a fetch patched after the client was made (msw, polyfills) is honoured.
      // Called with (url, init) rather than a Request: the platform would copy a Request, signal and all.
      pending = globalThis.fetch(url, fetchInit);
    }
    response = await Promise.race([pending, stopped]);
  } catch (cause) {
    fetchSignal.removeEventListener("abort", onAbort);
    clearTimeout(timer);
    void outgoing;
    if (signal?.aborted) throw abortError(signal);
    if (timedOut) return new FdxTimeoutError(`${method} ${url} timed out after ${timeoutMs} ms`);
    return new FdxConnectionError(`${method} ${url} failed: ${describe(cause)}`, { cause });
  }
  // The timeout covers the wait for headers only.
  clearTimeout(timer);
  if (response.ok && !readBody) {
    // A streamed body: the download's own guard listens to the caller's signal from here on.
    fetchSignal.removeEventListener("abort", onAbort);
    return response;
  }
  // The caller's signal still cancels reading the body.
  try {
    if (!response.ok) return await Promise.race([toApiError(response, method, url), stopped]);
    let text: string;
    try {
      // Only the caller can stop a body read (the timer is cleared): without a signal, no race.
      text = await (signal ? Promise.race([response.text(), stopped]) : response.text());
    } catch (cause) {
      if (signal?.aborted) throw abortError(signal);
      return new FdxConnectionError(`${method} ${url} failed while reading the response: ${describe(cause)}`, { cause });
    }
    const { ok, status, statusText, headers } = response;
    // A plain object closing over the text: a class would only add field names to the bundle.
    return { ok, status, statusText, headers, body: null, text: async () => text, json: async () => JSON.parse(text) as unknown };
  } catch (error) {
    if (signal?.aborted) throw abortError(signal);
    throw error;
  } finally {
    fetchSignal.removeEventListener("abort", onAbort);
    void outgoing;
  }
}

async function resolveToken(token: Exclude<TokenProvider, string>, signal: AbortSignal | undefined): Promise<string> {
  let value: string | Promise<string>;
  try {
    value = token();
  } catch (error) {
    throw failure("The token function", error);
  }
  if (typeof value !== "string") {
    // The token function is not covered by the timeout, but the caller can still give up on it.
    value = await new Promise<string>((resolve, reject) => {
      const onAbort = () => reject(abortError(signal!));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      Promise.resolve(value)
        .then(resolve, (error: unknown) => reject(failure("The token function", error)))
        .finally(() => signal?.removeEventListener("abort", onAbort));
    });
  }
  if (typeof value !== "string" || value === "") {
    throw new FdxValidationError([{ path: "token", message: "the token function must return a non-empty string" }]);
  }
  return value;
}

/**
 * Every error the SDK throws is an `FdxError`: what fails in code it calls
 * (the token function, loading the response schemas) is wrapped, with its
 * error as `cause`. `what` names it: "The token function" failed.
 */
export function failure(what: string, error: unknown): FdxError {
  return error instanceof FdxError ? error : new FdxError(`${what} failed (see cause)`, { cause: error });
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
