import type { IncomingMessage, ServerResponse } from "node:http";

/** A Fetch-API handler, such as the one `createWebhookHandler` returns. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** A listener for `http.createServer`, `https.createServer` or an Express route. */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Adapts a Fetch-API handler `(Request) => Promise<Response>` to a Node
 * listener `(req, res) => void`, for `http.createServer` and Express.
 *
 * The request body is streamed into the `Request` as the handler reads it (not
 * buffered first), so a handler's byte limit holds here too: when the handler
 * answers before the body has fully arrived (413, 415, …), the response is sent
 * and then the connection is closed instead of reading the rest. The response
 * body is streamed back with backpressure. A handler that throws gets a 500;
 * nothing becomes an unhandled rejection.
 *
 * In Express, mount it on a route without a body-parsing middleware in front
 * (`app.post("/webhooks", toNodeListener(handler))`): the handler needs the
 * raw body.
 *
 * @example
 * ```ts
 * http.createServer(toNodeListener(createWebhookHandler({ onNotification }))).listen(3000);
 * ```
 */
export function toNodeListener(handler: FetchHandler): NodeListener {
  return (req, res) => {
    serve(handler, req, res).catch((error: unknown) => {
      // Only reached when writing the response itself failed.
      res.destroy(error instanceof Error ? error : undefined);
    });
  };
}

async function serve(handler: FetchHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // Aborts the handler's signal when the client goes away before the answer is complete.
  const aborter = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) aborter.abort();
  });
  // Once answered, a body still arriving is cut off: left alone, Node would read it to the end.
  res.once("finish", () => {
    if (!req.complete) req.destroy();
  });

  let response: Response;
  try {
    response = await handler(toRequest(req, aborter.signal));
    // Duck-typed: frameworks such as @hono/node-server install their own Response class.
    if (typeof response?.status !== "number" || typeof response.headers?.get !== "function") {
      throw new TypeError("handler did not return a Response");
    }
  } catch {
    response = new Response(JSON.stringify({ error: "internal error" }), {
      status: 500,
      headers: { "content-type": "application/json" },
    });
  }
  await writeResponse(response, req, res);
}

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      // A header value the Fetch API refuses; the handler cannot use it anyway.
    }
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  const init: RequestInit & { duplex?: "half" } = { method, headers, signal };
  if (hasBody) {
    init.body = bodyStream(req);
    init.duplex = "half"; // Required for a streamed request body.
  }
  return new Request(requestUrl(req), init);
}

function requestUrl(req: IncomingMessage): string {
  const scheme = (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
  try {
    return new URL(`${scheme}://${req.headers.host ?? "localhost"}${req.url ?? "/"}`).href;
  } catch {
    // A malformed Host header must not keep a valid body from its handler.
    return new URL(req.url?.startsWith("/") ? req.url : "/", `${scheme}://localhost`).href;
  }
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
