// Shared test fixtures: an msw server that records what reaches it, and a real HTTP server on 127.0.0.1.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll } from "vitest";

export const BASE = "https://api.test";
export const TOKEN = "tkn-5ecr3t-Zq9";

export interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

type Method = "get" | "post" | "patch" | "delete" | "put" | "all";

/**
 * An msw server for one test file; unhandled requests fail the test.
 * `on(method, url, reply)` installs a handler that records each request
 * (method, absolute URL, headers, exact body text) into `seen`.
 */
export function useMsw() {
  const server = setupServer();
  const seen: Seen[] = [];
  beforeAll(() =>
    server.listen({
      // Real servers on 127.0.0.1 in the same file are reached for real.
      onUnhandledRequest: (request, print) => {
        if (new URL(request.url).hostname !== "127.0.0.1") print.error();
      },
    }),
  );
  afterEach(() => {
    server.resetHandlers();
    seen.length = 0;
  });
  afterAll(() => server.close());
  const on = (method: Method, url: string, reply: (request: Request, n: number) => Response | Promise<Response>) => {
    let n = 0;
    server.use(
      http[method](url, async ({ request }) => {
        const body = await request.clone().text();
        seen.push({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body });
        return reply(request, ++n);
      }),
    );
  };
  return { server, seen, on };
}

export interface RealServer {
  url: string;
  /** Requests received so far. */
  readonly count: number;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 and an ephemeral port, for what msw cannot fake (resets, hangs, refused connections). */
export async function startHttp(handler: (req: IncomingMessage, res: ServerResponse, n: number) => void): Promise<RealServer> {
  let count = 0;
  const server: Server = createServer((req, res) => {
    count++;
    handler(req, res, count);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get count() {
      return count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port that refuses connections: bound, then released. */
export async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Settles `promise` into its rejection reason (fails the test if it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject");
}
