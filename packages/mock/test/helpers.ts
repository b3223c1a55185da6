import net from "node:net";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll } from "vitest";
import { createMockHandlers, startMockServer, type MockControls, type MockOptions, type MockServer, type MockServerOptions } from "../src/index.js";

/** A mock server for the whole test file, with a raw-fetch helper that sends the token. */
export function useMockServer(options: MockServerOptions = {}) {
  const context = {} as { mock: MockServer; api: (path: string, init?: RequestInit) => Promise<Response> };
  beforeAll(async () => {
    context.mock = await startMockServer(options);
    context.api = (path, init = {}) => {
      const headers = new Headers(init.headers);
      if (!headers.has("Authorization")) headers.set("Authorization", `Bearer ${context.mock.token}`);
      if (init.body !== undefined && !headers.has("Content-Type")) headers.set("Content-Type", "application/json");
      // baseUrl is the bare origin, so "/products/..." paths work too.
      const url = /^https?:/.test(path) ? path : `${context.mock.baseUrl}${path}`;
      return fetch(url, { ...init, headers });
    };
  });
  afterAll(() => context.mock?.close());
  return context;
}

export const validSubscription = {
  category: "MAINTENANCE",
  type: "PLANNED_OUTAGE",
  callbackUrl: "https://hooks.example.com/fdx",
} as const;

/** One HTTP answer read off a raw socket. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends bytes as they are over a new TCP connection and reads the first answer
 * (by its Content-Length). No HTTP client in between: request targets,
 * methods and bodies reach the server exactly as written.
 */
export function rawHttp(port: number, request: string | Buffer, options: { head?: boolean } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let data = Buffer.alloc(0);
    const done = (answer: RawAnswer | Error) => {
      socket.destroy();
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    socket.on("data", (chunk) => {
      data = Buffer.concat([data, chunk]);
      const answer = parseAnswer(data, options.head);
      if (answer) done(answer);
    });
    socket.on("error", (error) => done(error));
    socket.on("close", () => done(new Error(`connection closed without a complete answer: ${JSON.stringify(data.toString("latin1"))}`)));
    socket.write(request);
  });
}

/** The first complete answer in `data`, or `undefined` while it is still arriving. */
export function parseAnswer(data: Buffer, head = false): RawAnswer | undefined {
  const end = data.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const [statusLine = "", ...lines] = data.subarray(0, end).toString("latin1").split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = head ? 0 : Number(headers["content-length"] ?? 0);
  if (data.byteLength < end + 4 + length) return undefined;
  return { status: Number(statusLine.split(" ")[1]), headers, body: data.subarray(end + 4, end + 4 + length).toString("utf8") };
}

/**
 * Starts the sandbox the two ways a test compares — a real server, or msw's
 * handlers in this process — and closes whichever was started after each test.
 */
export function useEitherMock(): (kind: "server" | "msw", options?: MockOptions) => Promise<MockControls> {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });
  return async (kind, options = {}) => {
    if (kind === "server") {
      const mock = await startMockServer(options);
      close = () => mock.close();
      return mock;
    }
    const handlers = createMockHandlers(options);
    const server = setupServer(...handlers);
    server.listen({ onUnhandledRequest: "error" });
    close = async () => {
      server.close();
      await handlers.mock.dispose();
    };
    return handlers.mock;
  };
}
