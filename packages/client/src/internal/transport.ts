import { FdxConnectionError, FdxError, FdxTimeoutError, FdxValidationError } from "../core/errors/index.js";
import type { FetchLike, RequestOptions, TokenProvider } from "../core/options.js";
import { toApiError } from "./api-error.js";
import { settleOnAbort } from "./fetch-once.js";
import { anySignal } from "./signals.js";
import type { Outgoing } from "./outgoing.js";
import { MAX_RETRY_AFTER_MS, backoffMs, isRetryableFailure, isRetryableStatus, parseRetryAfter } from "./retry.js";
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
 * The one request pipeline every call goes through: bearer auth, a timeout
 * per attempt (until headers), the caller's signal, retries, and error
 * mapping. Resolves with a 2xx `Response`; anything else rejects with an
 * `FdxError`.
 */
export interface Transport {
  send(request: Outgoing, options?: RequestOptions, mode?: SendMode): Promise<Response>;
}

export function createTransport(config: TransportConfig): Transport {
  const send = async (request: Outgoing, options: RequestOptions = {}, mode: SendMode = {}): Promise<Response> => {
    const { signal } = options;
    const method = request.method;
    const maxRetries = options.maxRetries ?? config.maxRetries;
    const timeoutMs = options.timeoutMs ?? config.timeoutMs;
    checkCallOptions(maxRetries, timeoutMs);
    // Read once so every attempt can send the same bytes.
    const body =
      method === "GET" || method === "HEAD" || request.body === null
        ? undefined
        : typeof request.body === "string"
          ? request.body
          : await request.arrayBuffer();

    for (let retry = 0; ; retry++) {
      if (signal?.aborted) throw abortError(signal);
      const token = await resolveToken(config.token, signal);
      const headers = requestHeaders(request.headers, options.headers, token);

      const outcome = await attempt(config, request, { method, headers, body }, timeoutMs, signal);
      let failure: FdxError;
      let delay: number | undefined;
      // Not `instanceof Response`: servers such as @hono/node-server swap the global Response class.
      if (!(outcome instanceof FdxError)) {
        if (outcome.ok) {
          if (!mode.readBody) return outcome;
          const buffered = await buffer(outcome, method, request.url, signal);
          if (!(buffered instanceof FdxError)) return buffered;
          if (!isRetryableFailure(method)) throw buffered;
          failure = buffered;
        } else {
          const error = await toApiError(outcome, method, request.url);
          if (signal?.aborted) throw abortError(signal);
          if (!isRetryableStatus(method, error.status)) throw error;
          failure = error;
          delay = parseRetryAfter(outcome.headers.get("retry-after"));
          if (delay !== undefined && delay > MAX_RETRY_AFTER_MS) throw error;
        }
      } else {
        if (!isRetryableFailure(method)) throw outcome;
        failure = outcome;
      }
      if (retry >= maxRetries) throw failure;
      await sleep(delay ?? backoffMs(retry), signal);
    }
  };

  return { send };
}

function checkCallOptions(maxRetries: unknown, timeoutMs: unknown): void {
  const issues = [];
  if (!(Number.isInteger(maxRetries) && (maxRetries as number) >= 0)) issues.push({ path: "maxRetries", message: "must be an integer >= 0" });
  if (!(Number.isInteger(timeoutMs) && (timeoutMs as number) >= 0)) issues.push({ path: "timeoutMs", message: "must be an integer >= 0" });
  if (issues.length) throw new FdxValidationError(issues);
}

// Header values the platform refuses would otherwise surface as a TypeError
// quoting the value — the token included.
// Set on the request's own headers: every attempt sets the same names again, so nothing is copied.
function requestHeaders(headers: Headers, extra: Record<string, string> | undefined, token: string): Headers {
  for (const [name, value] of Object.entries(extra ?? {})) {
    try {
      headers.set(name, value);
    } catch {
      throw new FdxValidationError([{ path: `headers.${name}`, message: "is not a valid HTTP header" }]);
    }
  }
  try {
    headers.set("Authorization", `Bearer ${token}`);
  } catch {
    throw new FdxValidationError([{ path: "token", message: "is not usable in an HTTP header (control or non-Latin-1 characters)" }]);
  }
  return headers;
}

/** One HTTP attempt: the Response, or the connection/timeout error (aborts by the caller are thrown). */
async function attempt(
  config: TransportConfig,
  request: Outgoing,
  init: { method: string; headers: Headers; body: ArrayBuffer | string | undefined },
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Response | FdxConnectionError> {
  const timeout = new AbortController();
  const linked = anySignal(signal, timeout.signal);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    timeout.abort();
  }, timeoutMs);

  const fetchInit: RequestInit = {
    method: init.method,
    headers: init.headers,
    body: init.body,
    redirect: request.redirect,
    signal: linked,
  };
  try {
    if (config.fetch) {
      const outgoing = new Request(request.url, fetchInit);
      return await settleOnAbort((config.fetch as FetchLike)(outgoing), linked, outgoing);
    }
    // Looked up per call, so a fetch patched after the client was made (msw, polyfills) is honoured.
    // Called with (url, init) rather than a Request: the platform would copy a Request, signal and all.
    return await settleOnAbort(globalThis.fetch(request.url, fetchInit), linked);
  } catch (cause) {
    if (signal?.aborted) throw abortError(signal);
    if (timedOut) {
      return new FdxTimeoutError(`${init.method} ${request.url} timed out after ${timeoutMs} ms waiting for a response`);
    }
    return new FdxConnectionError(`${init.method} ${request.url} failed: ${describe(cause)}`, { cause });
  } finally {
    // The timeout covers the wait for headers only; the caller's signal stays linked to the body.
    clearTimeout(timer);
  }
}


/** Reads a 2xx body into memory; a failure while reading is a connection error like any other. */
async function buffer(
  response: Response,
  method: string,
  url: string,
  signal: AbortSignal | undefined,
): Promise<Response | FdxConnectionError> {
  let text: string;
  try {
    text = await response.text();
  } catch (cause) {
    if (signal?.aborted) throw abortError(signal);
    return new FdxConnectionError(`${method} ${url} failed while reading the response: ${describe(cause)}`, { cause });
  }
  return new BufferedResponse(text, response);
}

/**
 * A response whose body was already read: `text()` and `json()` answer from
 * the string held, instead of streaming the same bytes a second time (which
 * costs more than the request itself on a fast local network).
 */
class BufferedResponse extends Response {
  readonly #text: string;

  constructor(text: string, from: Response) {
    super(null, { status: from.status, statusText: from.statusText, headers: from.headers });
    this.#text = text;
  }

  override text(): Promise<string> {
    return Promise.resolve(this.#text);
  }

  override json(): Promise<unknown> {
    return new Promise((resolve) => resolve(JSON.parse(this.#text)));
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(new TextEncoder().encode(this.#text).buffer as ArrayBuffer);
  }
}

async function resolveToken(token: TokenProvider, signal: AbortSignal | undefined): Promise<string> {
  if (typeof token === "string") return token;
  let value: string | Promise<string>;
  try {
    value = token();
  } catch (error) {
    throw tokenFailure(error);
  }
  if (typeof value !== "string") {
    // The token function is not covered by the timeout, but the caller can still give up on it.
    value = await new Promise<string>((resolve, reject) => {
      const onAbort = () => reject(abortError(signal!));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      Promise.resolve(value)
        .then(resolve, (error: unknown) => reject(tokenFailure(error)))
        .finally(() => signal?.removeEventListener("abort", onAbort));
    });
  }
  if (typeof value !== "string" || value === "") {
    throw new FdxValidationError([{ path: "token", message: "the token function must return a non-empty string" }]);
  }
  return value;
}

/** Every error the SDK throws is an `FdxError`: a failing token function is wrapped, with its error as `cause`. */
function tokenFailure(error: unknown): FdxError {
  return error instanceof FdxError ? error : new FdxError("The token function failed (see cause)", { cause: error });
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
