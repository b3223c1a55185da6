import { httpUrl, integerMessage, isIntegerAtLeast } from "../internal/checks.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import { FdxValidationError } from "../core/error.js";

/** A Fetch-API handler, such as the one `createWebhookHandler` returns. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** A listener for `http.createServer`, `https.createServer` or an Express route. */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /**
   * The origin of every `request.url` (`"https://hooks.example.com"`), in place
   * of the one built from the connection and the request's `Host` header. Set
   * it behind a proxy that rewrites Host or terminates TLS, or wherever a
   * client's Host must not decide the URL the handler sees.
   */
  origin?: string;
  /**
   * The answer to a request whose method the Fetch API refuses to carry
   * (`TRACE`, `TRACK`), so it can never reach the handler. Default: 501
   * `{"error":"method not implemented"}`. (`CONNECT` never reaches a request
   * listener: `node:http` hands it to the server's `"connect"` event.)
   */
  onForbiddenMethod?: (req: IncomingMessage) => Response | Promise<Response>;
  /**
   * How long a request body may take to arrive, in milliseconds, from the
   * moment the request reaches the listener. A body still incomplete then is
   * answered 408 and its connection closed (the handler's `request.signal`
   * aborts): a slow sender cannot hold memory and a connection for Node's
   * five-minute `requestTimeout`. Default 10 000.
   */
  bodyTimeoutMs?: number;
}

const DEFAULT_BODY_TIMEOUT_MS = 10_000;

// Methods the Fetch `Request` constructor throws on.
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

// Written here rather than taken from a library, and the sandbox serves
// through it too (one bridge for both packages). @hono/node-server's
// getRequestListener, the best kept of them, replaces the process's global
// Request and Response unless told not to (`overrideGlobalObjects`; Next.js's
// `instanceof Response` broke under it), which an SDK must never do to its
// users; and either it or @remix-run/node-fetch-server would be a runtime
// dependency of @fdxkit/client for what fits in about 200 lines here.

// Fields that describe the connection to this server, not the request: the
// body arrives de-chunked, and a handler that forwards the request with
// `fetch` would have it refused for carrying them.
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"]);

/**
 * Adapts a Fetch-API handler `(Request) => Promise<Response>` to a Node
 * listener `(req, res) => void`, for `http.createServer` and Express.
 *
 * The request body is streamed into the `Request` as the handler reads it (not
 * buffered first), so a handler's byte limit holds here too: when the handler
 * answers before the body has fully arrived (413, 415, …), the response says
 * `Connection: close` and the connection is closed after it instead of reading
 * the rest. The response body is streamed back with backpressure. A handler
 * that throws gets a 500; nothing becomes an unhandled rejection. A
 * `Response.error()` resets the connection, as a network error would.
 *
 * `request.url` is the request target on the connection's origin (`Host`
 * header, or `options.origin`): an absolute-form target
 * (`GET http://host/path`, as proxies send) keeps its own host and is served
 * by its path; `OPTIONS *` arrives as the path `/*`; connection headers
 * (`Connection`, `Transfer-Encoding`, `Keep-Alive`, …) are left out.
 *
 * In Express, mount it on a route without a body-parsing middleware in front
 * (`app.post("/webhooks", toNodeListener(handler))`): the handler needs the
 * raw body.
 *
 * @example
 * ```ts
 * http.createServer(toNodeListener(createWebhookHandler({ onNotification }))).listen(3000);
 * ```
 *
 * @throws {FdxValidationError} when `handler` is not a function or `options.origin` is not an http(s) origin.
 */
export function toNodeListener(handler: FetchHandler, options: NodeListenerOptions = {}): NodeListener {
  if (typeof handler !== "function") {
    throw new FdxValidationError([{ path: "handler", message: "must be a function" }]);
  }
  const origin = options.origin === undefined ? undefined : checkedOrigin(options.origin);
  const onForbiddenMethod = options.onForbiddenMethod ?? notImplemented;
  const { bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS } = options;
  if (!isIntegerAtLeast(bodyTimeoutMs, 1)) throw new FdxValidationError([{ path: "bodyTimeoutMs", message: integerMessage(1) }]);
  return (req, res) => {
    serve(req, res, (request) => (request ? handler(request) : onForbiddenMethod(req)), origin, bodyTimeoutMs).catch((error: unknown) => {
      // Only reached when writing the response itself failed.
      res.destroy(error instanceof Error ? error : undefined);
    });
  };
}

function checkedOrigin(value: unknown): string {
  const url = httpUrl(value);
  // Nothing but scheme, host and port: a path would be silently dropped.
  if (!url || url.href !== `${url.origin}/`) {
    throw new FdxValidationError([{ path: "origin", message: 'must be an http(s) origin such as "https://hooks.example.com"' }]);
  }
  return url.origin;
}

function notImplemented(): Response {
  return jsonResponse(501, "method not implemented");
}

function jsonResponse(status: number, error: string): Response {
  return new Response(JSON.stringify({ error }), { status, headers: { "content-type": "application/json" } });
}

/** `answer` gets the Request, or `undefined` for a method the Fetch API cannot carry. */
async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  answer: (request: Request | undefined) => Response | Promise<Response>,
  origin: string | undefined,
  bodyTimeoutMs: number,
): Promise<void> {
  // Aborts the handler's signal when the client goes away before the answer is complete.
  const aborter = new AbortController();
  // A body still arriving after bodyTimeoutMs: answered 408 here, whatever the handler is doing, and the connection closed.
  let timedOut = false;
  const timer = req.complete
    ? undefined
    : setTimeout(() => {
        if (req.complete || res.headersSent) return;
        timedOut = true;
        aborter.abort(new DOMException("The request body timed out", "TimeoutError"));
        res.writeHead(408, { "content-type": "application/json", connection: "close" });
        // The "finish" listener below then cuts the connection, the unread body with it.
        res.end(JSON.stringify({ error: "request body timed out" }));
      }, bodyTimeoutMs);
  res.once("close", () => {
    clearTimeout(timer);
    if (!res.writableFinished) aborter.abort();
  });
  // Once answered, a body still arriving is cut off: left alone, Node would read it to the end.
  res.once("finish", () => {
    if (!req.complete) req.destroy();
  });

  let response: Response;
  try {
    const method = req.method ?? "GET";
    response = await answer(FORBIDDEN_METHODS.has(method.toUpperCase()) ? undefined : toRequest(req, method, origin, aborter.signal));
    // Duck-typed: frameworks such as @hono/node-server install their own Response class.
    if (typeof response?.status !== "number" || typeof response.headers?.get !== "function") {
      throw new TypeError("handler did not return a Response");
    }
  } catch {
    response = jsonResponse(500, "internal error");
  }
  clearTimeout(timer);
  if (timedOut) {
    // Already answered 408.
    await response.body?.cancel().catch(() => {});
    return;
  }
  if (response.type === "error") {
    resetConnection(req);
    return;
  }
  await writeResponse(response, req, res);
}

/** Ends the connection with a TCP reset, what a client sees of a network error. */
function resetConnection(req: IncomingMessage): void {
  const socket = req.socket as IncomingMessage["socket"] & { resetAndDestroy?: () => void };
  // Bun's and Deno's node:net lack resetAndDestroy; a plain close is the nearest they have.
  if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
  else socket.destroy();
}

function toRequest(req: IncomingMessage, method: string, origin: string | undefined, signal: AbortSignal): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (HOP_BY_HOP.has(name.toLowerCase())) continue;
    try {
      headers.append(name, raw[i + 1]!);
    } catch {
      // A header value the Fetch API refuses; the handler cannot use it anyway.
    }
  }
  const hasBody = method !== "GET" && method !== "HEAD";
  const init: RequestInit & { duplex?: "half" } = { method, headers, signal };
  if (hasBody) {
    init.body = bodyStream(req);
    init.duplex = "half"; // Required for a streamed request body.
  }
  return new Request(requestUrl(req, origin), init);
}

/**
 * The URL of the request target (RFC 9112 §3.2): origin-form (`/path?query`)
 * on the origin; absolute-form (`http://host/path`) by its path and query, on
 * its own origin unless one is fixed (Host is then to be ignored);
 * asterisk-form (`OPTIONS *`) as `/*`; anything else as `/`, for the handler
 * to refuse.
 */
function requestUrl(req: IncomingMessage, fixedOrigin: string | undefined): string {
  const target = req.url ?? "/";
  if (!target.startsWith("/") && target !== "*") {
    try {
      const url = new URL(target);
      if (url.protocol === "http:" || url.protocol === "https:") return `${fixedOrigin ?? url.origin}${url.pathname}${url.search}`;
    } catch {
      // Not absolute-form either.
    }
  }
  const origin = fixedOrigin ?? hostOrigin(req);
  const path = target.startsWith("/") ? target : target === "*" ? "/*" : "/";
  try {
    return new URL(`${origin}${path}`).href;
  } catch {
    return `${origin}/`;
  }
}

// The last origin built, by scheme and Host: a server sees the same Host on request after request.
let lastOrigin = { key: "", origin: "" };

/** `scheme://host[:port]` from the connection and the Host header; `localhost` when Host is absent or not a host. */
function hostOrigin(req: IncomingMessage): string {
  const scheme = (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
  const host = req.headers.host;
  const key = `${scheme} ${host ?? ""}`;
  if (lastOrigin.key === key) return lastOrigin.origin;
  let origin = `${scheme}://localhost`;
  // Anything but a host and port (a path, credentials, a space) would change more than the origin.
  if (host && !/[\s/\\?#@]/.test(host)) {
    try {
      origin = new URL(`${scheme}://${host}`).origin;
    } catch {
      // A malformed Host must not keep a valid request from its handler.
    }
  }
  lastOrigin = { key, origin };
  return origin;
}

/**
 * The request body as a web stream that reads from the socket only when asked
 * (one chunk per pull). Cancelling it stops reading but leaves the connection
 * open, so the handler's answer can still be written; the "finish" listener
 * in `serve` closes it afterwards. (`Readable.toWeb` would destroy the
 * request, and with it the socket, on cancel.)
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let settled = false;
  const detach = () => {
    settled = true;
    req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
    req.pause();
  };
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const onData = (chunk: Buffer | string) => {
    if (settled) return;
    const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    controller.enqueue(bytes);
    if ((controller.desiredSize ?? 0) <= 0) req.pause();
  };
  const onEnd = () => {
    if (settled) return;
    detach();
    controller.close();
  };
  const onError = (error: Error) => {
    if (settled) return;
    detach();
    controller.error(error);
  };
  // "close" without "end": the client went away mid-body.
  const onClose = () => {
    if (!settled && !req.complete) onError(new Error("request body aborted by the client"));
  };

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        // Already read (a body parser ran first): 'end' will not come again, so don't wait for it.
        if (req.readableEnded) {
          settled = true;
          controller.close();
          return;
        }
        req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
        req.pause();
      },
      pull() {
        req.resume();
      },
      cancel() {
        detach();
      },
    },
    { highWaterMark: 1 },
  );
}

async function writeResponse(response: Response, req: IncomingMessage, res: ServerResponse): Promise<void> {
  res.statusCode = response.status;
  if (response.statusText) res.statusMessage = response.statusText;
  for (const [name, value] of response.headers) {
    if (name !== "set-cookie") res.setHeader(name, value);
  }
  const cookies = typeof response.headers.getSetCookie === "function" ? response.headers.getSetCookie() : [];
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  // Keep-alive is pointless on a connection about to be cut for an unread body.
  if (!req.complete) res.setHeader("connection", "close");

  if (response.body === null || req.method === "HEAD") {
    await response.body?.cancel().catch(() => {});
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const stop = () => reader.cancel().catch(() => {});
  res.once("close", stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      if (!res.write(value)) await drained(res);
    }
    res.end();
  } catch (error) {
    // Headers are out; the only honest signal of a broken body is a cut connection.
    res.destroy(error instanceof Error ? error : undefined);
  } finally {
    res.off("close", stop);
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done).off("close", done);
      resolve();
    };
    res.on("drain", done).on("close", done);
  });
}
