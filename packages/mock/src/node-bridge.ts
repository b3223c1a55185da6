import type { IncomingMessage, ServerResponse } from "node:http";

// Hop-by-hop headers describe the node connection, not the request.
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection", "te", "trailer"]);

/**
 * The request body as a stream that reads nothing from the socket until the
 * app reads it: an answer given without the body (401, 413) leaves the rest
 * unread, and {@link writeResponse} then closes the connection.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let started = false;
  let settled = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (!started) {
          started = true;
          req.on("data", (chunk: Buffer) => {
            controller.enqueue(new Uint8Array(chunk));
            req.pause(); // one chunk per pull
          });
          req.on("end", () => {
            settled = true;
            controller.close();
          });
          req.on("close", () => {
            if (!settled) controller.error(new Error("The client closed the connection before the body ended"));
            settled = true;
          });
        }
        req.resume();
      },
      cancel() {
        settled = true;
        req.pause();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The URL of a request target: origin-form (`/path?query`) byte for byte;
 * absolute-form (`http://host/path`, as proxies send) by its path and query,
 * on this server's origin; asterisk-form (`OPTIONS *`) as `/*`.
 */
export function requestUrl(target: string, origin: string): string {
  if (target.startsWith("/")) return `${origin}${target}`;
  try {
    const url = new URL(target);
    if (url.protocol === "http:" || url.protocol === "https:") return `${origin}${url.pathname}${url.search}`;
  } catch {
    // not absolute: asterisk-form, or something only the app can refuse
  }
  return `${origin}/${target === "*" ? "*" : ""}`;
}

/** A Fetch `Request` for a node request. Throws for a method Fetch cannot carry (TRACE, TRACK, CONNECT). */
export function toRequest(req: IncomingMessage, origin: string): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    if (!HOP_BY_HOP.has(name.toLowerCase())) headers.append(name, req.rawHeaders[i + 1] as string);
  }
  const method = req.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? undefined : bodyStream(req);
  return new Request(requestUrl(req.url ?? "/", origin), { method, headers, body, duplex: "half" } as RequestInit);
}

/**
 * Writes a Fetch `Response` to a node response, with an exact Content-Length.
 * `Response.error()` resets the connection. When the app answered without
 * reading the whole body, the connection is closed after the answer rather
 * than drained: the rest of the body is never read.
 */
export async function writeResponse(response: Response, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (response.type === "error") {
    req.socket.resetAndDestroy();
    return;
  }
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (response.status !== 204 && response.status !== 304) headers["content-length"] = String(body.byteLength);
  if (!req.complete) headers.connection = "close";
  res.writeHead(response.status, headers);
  res.end(req.method === "HEAD" ? undefined : body);
}
