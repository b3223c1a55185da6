import { HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { createClient, FdxApiError, FdxInternalServerError, FdxMaintenanceError, FdxRateLimitError, FdxValidationError } from "../../src/index.js";
import { BASE, TOKEN, rejectionOf, useMsw } from "../support/http.js";
import { transport } from "../support/transport.js";

const { on, seen } = useMsw();
const client = createClient({ baseUrl: BASE, token: TOKEN }); // default maxRetries: 2
const SUBS = `${BASE}/notifications/v1/subscriptions`;
const input = { category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://me.test/h" } as const;
const sub = { ...input, subscriptionId: "s-1" };

// Retry-After: 0 keeps the tests fast without touching the backoff itself.
const fail = (status: number, code = String(status)) => HttpResponse.json({ code, message: "x" }, { status, headers: { "Retry-After": "0" } });

describe("which failures are retried", () => {
  it.each([429, 503])("POST is retried on %i and then succeeds", async (status) => {
    on("post", SUBS, (_, n) => (n === 1 ? fail(status) : HttpResponse.json(sub)));
    await expect(client.subscriptions.create(input)).resolves.toEqual(sub);
    expect(seen).toHaveLength(2);
    // The same body is sent again.
    expect(seen[1]?.body).toBe(seen[0]?.body);
  });

  it.each([500, 502, 504])("POST is not retried on %i", async (status) => {
    on("post", SUBS, () => fail(status));
    await expect(client.subscriptions.create(input)).rejects.toBeInstanceOf(FdxApiError);
    expect(seen).toHaveLength(1);
  });

  it.each([
    ["GET", () => client.subscriptions.get("s-1"), "get"],
    ["PATCH", () => client.subscriptions.update("s-1", { callbackEmail: "a@me.test" }), "patch"],
    ["DELETE", () => client.subscriptions.delete("s-1"), "delete"],
  ] as const)("%s is retried on 500 up to maxRetries (3 attempts by default)", async (_, call, method) => {
    on(method, `${SUBS}/s-1`, () => fail(500));
    await expect(call()).rejects.toBeInstanceOf(FdxInternalServerError);
    expect(seen).toHaveLength(3);
  });

  it("4xx other than 429 are never retried", async () => {
    on("get", `${SUBS}/s-1`, () => fail(404, "NotFound"));
    await expect(client.subscriptions.get("s-1")).rejects.toBeInstanceOf(FdxApiError);
    expect(seen).toHaveLength(1);
  });

  it("per-call maxRetries overrides the client's", async () => {
    on("get", `${SUBS}/s-1`, () => fail(503));
    await expect(client.subscriptions.get("s-1", { maxRetries: 0 })).rejects.toBeInstanceOf(FdxMaintenanceError);
    expect(seen).toHaveLength(1);
    seen.length = 0;
    await expect(client.subscriptions.get("s-1", { maxRetries: 4 })).rejects.toBeInstanceOf(FdxMaintenanceError);
    expect(seen).toHaveLength(5);
  });

  it("after the last retry the last error is thrown, with its Retry-After", async () => {
    on("post", SUBS, () => fail(429, "1207"));
    const error = (await rejectionOf(client.subscriptions.create(input, { maxRetries: 1 }))) as FdxRateLimitError;
    expect(error).toBeInstanceOf(FdxRateLimitError);
    expect(error.retryAfterMs).toBe(0);
    expect(seen).toHaveLength(2);
  });

  it("a 429 asking for more than 60 s is surfaced without retrying", async () => {
    on("post", SUBS, () => HttpResponse.json({ code: "1207", message: "Too Many Requests" }, { status: 429, headers: { "Retry-After": "3600" } }));
    const error = (await rejectionOf(client.subscriptions.create(input))) as FdxRateLimitError;
    expect(error.retryAfterMs).toBe(3_600_000);
    expect(seen).toHaveLength(1);
  });
});

describe("client options", () => {
  it.each([
    ["a relative baseUrl", { baseUrl: "/api" }, "baseUrl"],
    ["an ftp baseUrl", { baseUrl: "ftp://x.test" }, "baseUrl"],
    ["a baseUrl with a query", { baseUrl: "https://x.test/?a=1" }, "baseUrl"],
    ["an empty token", { token: "" }, "token"],
    ["a negative timeout", { timeoutMs: -1 }, "timeoutMs"],
    ["a fractional maxRetries", { maxRetries: 1.5 }, "maxRetries"],
    // Past 2^53 a number no longer counts milliseconds one by one: no other integer option takes it.
    ["a timeout past 2^53", { timeoutMs: 2 ** 53 }, "timeoutMs"],
    ['a ".." version', { versions: { notifications: ".." } }, "versions.notifications"],
    ["an empty version", { versions: { consents: "" } }, "versions.consents"],
    // encodeURIComponent would throw a URIError on it at every request.
    ["a version with a lone surrogate", { versions: { statements: "v\uD800" } }, "versions.statements"],
  ])("createClient rejects %s with FdxValidationError naming it", (_, override, path) => {
    let error: unknown;
    try {
      createClient({ baseUrl: BASE, token: TOKEN, ...override });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues.map((i) => i.path)).toContain(path);
  });

  it.each([
    [{ maxRetries: -1 }, "maxRetries"],
    [{ timeoutMs: Number.NaN }, "timeoutMs"],
  ])("per-call %o is rejected before sending", async (options, path) => {
    const error = (await rejectionOf(client.subscriptions.get("s-1", options))) as FdxValidationError;
    expect(error).toBeInstanceOf(FdxValidationError);
    expect(error.issues.map((i) => i.path)).toEqual([path]);
    expect(seen).toHaveLength(0);
  });

  it.runIf(transport === "fetch")("looks fetch up at call time, so a fetch patched after createClient is used", async () => {
    const late = createClient({ baseUrl: "https://late.test", token: TOKEN, maxRetries: 0 });
    const original = globalThis.fetch;
    let used = 0;
    globalThis.fetch = async () => {
      used++;
      return Response.json({ id: "c-1" });
    };
    try {
      await expect(late.consents.get("c-1")).resolves.toEqual({ id: "c-1" });
    } finally {
      globalThis.fetch = original;
    }
    expect(used).toBe(1);
  });

  it.runIf(transport === "node")("in Node sends through its own transport, and `fetch: globalThis.fetch` restores fetch", async () => {
    const original = globalThis.fetch;
    let used = 0;
    globalThis.fetch = async () => {
      used++;
      return Response.json({ id: "c-fetch" });
    };
    try {
      // msw answers it through node:http's interception, not through the patched fetch.
      on("get", `${SUBS}/s-1`, () => HttpResponse.json(sub));
      const own = createClient({ baseUrl: BASE, token: TOKEN, maxRetries: 0 });
      await expect(own.subscriptions.get("s-1")).resolves.toEqual(sub);
      expect(used).toBe(0);
      const withFetch = createClient({ baseUrl: "https://late.test", token: TOKEN, maxRetries: 0, fetch: globalThis.fetch });
      await expect(withFetch.consents.get("c-1")).resolves.toEqual({ id: "c-fetch" });
      expect(used).toBe(1);
    } finally {
      globalThis.fetch = original;
    }
  });

  it("uses a custom fetch given in the options", async () => {
    const requests: Request[] = [];
    const custom = createClient({
      baseUrl: "https://custom.test",
      token: TOKEN,
      fetch: async (request: Request) => {
        requests.push(request);
        return Response.json({ id: "m-1" });
      },
    });
    await custom.maintenance.get("m-1");
    expect(requests.map((r) => r.url)).toEqual(["https://custom.test/notifications/v1/maintenance/m-1"]);
    expect(requests[0]?.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
  });

  it("rejects a token that cannot go in a header without quoting it", async () => {
    const bad = createClient({ baseUrl: BASE, token: "abc\r\ndef-secret" });
    const error = await rejectionOf(bad.consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxValidationError);
    expect(String(error)).not.toContain("def-secret");
    expect(seen).toHaveLength(0);
  });

  it.each([
    ["an empty string", () => ""],
    ["a number", () => 42],
    ["undefined", () => undefined],
    ["a promise of an empty string", async () => ""],
  ])("refuses a token function that returns %s, naming `token`, and sends nothing", async (_, token) => {
    const bad = createClient({ baseUrl: BASE, token: token as () => string });
    const error = await rejectionOf(bad.consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues).toEqual([{ path: "token", message: "the token function must return a non-empty string" }]);
    expect(seen).toHaveLength(0);
  });

  it("rejects a token function's value that cannot go in a header, without quoting it", async () => {
    const bad = createClient({ baseUrl: BASE, token: async () => "abc\ndef-secret" });
    const error = await rejectionOf(bad.consents.get("c-1"));
    expect((error as FdxValidationError).issues).toEqual([{ path: "token", message: "is not a valid HTTP header value" }]);
    expect(String(error)).not.toContain("def-secret");
    expect(seen).toHaveLength(0);
  });

  it("wraps a failing token function in an FdxError and sends nothing", async () => {
    const failing = createClient({
      baseUrl: BASE,
      token: () => {
        throw new Error("vault unreachable");
      },
    });
    const error = (await rejectionOf(failing.consents.get("c-1"))) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("FdxError");
    expect((error.cause as Error).message).toBe("vault unreachable");
    expect(seen).toHaveLength(0);
  });
});
