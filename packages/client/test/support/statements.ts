import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  /** `req.url` exactly as it arrived on the wire. */
  url: string;
  headers: IncomingHttpHeaders;
}

export interface TestServer {
  origin: string;
  received: Received[];
  /** Raw request URLs, in order. */
  urls(): string[];
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** A real HTTP server on 127.0.0.1 (ephemeral port) that records every request it gets. */
export async function startServer(handler: Handler): Promise<TestServer> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    Promise.resolve(handler(req, res)).catch((error: unknown) => {
      res.destroy(error as Error);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    urls: () => received.map((r) => r.url),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Serves JSON bodies by exact raw request URL; anything else is an FDX 404. */
export function routes(table: Record<string, unknown>): Handler {
  return (req, res) => {
    const url = req.url ?? "";
    if (Object.hasOwn(table, url)) return json(res, 200, table[url]);
    json(res, 404, { code: "701", message: `no route for ${url}` });
  };
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** A statement list page. */
export function page(ids: string[], links?: { next?: string; prev?: string }): Record<string, unknown> {
  return {
    statements: ids.map((statementId) => statement(statementId)),
    ...(links && {
      links: {
        ...(links.next !== undefined && { next: { href: links.next } }),
        ...(links.prev !== undefined && { prev: { href: links.prev } }),
      },
    }),
  };
}

export function statement(statementId: string, href = `/statements/v2/P/A/${statementId}`): Record<string, unknown> {
  return {
    accountId: "A",
    statementId,
    statementDate: "2025-01-31T00:00:00Z",
    description: `Statement ${statementId}`,
    status: "AVAILABLE",
    links: [{ href, action: "GET", rel: "download", types: ["application/pdf"] }],
  };
}

export function ids(statements: { statementId?: string }[]): (string | undefined)[] {
  return statements.map((s) => s.statementId);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
