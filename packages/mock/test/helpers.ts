import { afterAll, beforeAll } from "vitest";
import { startMockServer, type MockServer, type MockServerOptions } from "../src/index.js";

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
