import type { IncomingMessage, ServerResponse } from "node:http";

// Hop-by-hop headers describe the node connection, not the request.
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection", "te", "trailer"]);

async function readBody(req: IncomingMessage): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

/** A Fetch `Request` for a node request; bodies are small JSON, so they are read whole. */
export async function toRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    if (!HOP_BY_HOP.has(name.toLowerCase())) headers.append(name, req.rawHeaders[i + 1] as string);
  }
  const method = req.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? undefined : await readBody(req);
  // The path is kept byte for byte: prefixing the origin keeps encoded segments as they came.
  return new Request(`${origin}${req.url ?? "/"}`, { method, headers, body });
}

/** Writes a Fetch `Response` to a node response, with an exact Content-Length. */
export async function writeResponse(response: Response, res: ServerResponse, method: string | undefined): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (response.status !== 204 && response.status !== 304) headers["content-length"] = String(body.byteLength);
  res.writeHead(response.status, headers);
  res.end(method === "HEAD" ? undefined : body);
}
