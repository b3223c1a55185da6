// The request function as a user meets it through any method: interaction
// ids, hooks, redirects, limits, and many calls sharing one signal.
import { Readable } from "node:stream";
import { createGzip, gzipSync } from "node:zlib";
import { HttpResponse } from "msw";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createClient,
  FdxAbortError,
  FdxConnectionError,
  FdxError,
  FdxLinkError,
  FdxMaintenanceError,
  type FdxNotFoundError,
  type FdxRateLimitError,
  FdxResponseError,
  FdxTimeoutError,
  FdxValidationError,
  type ClientHooks,
  type ClientOptions,
} from "../../src/index.js";
import { BASE, TOKEN, rejectionOf, startHttp, useMsw, type RealServer } from "../support/http.js";

const { on, seen } = useMsw();
const CONSENT = `${BASE}/consents/v1/c-1`;
const grant = { id: "c-1", status: "ACTIVE" };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const client = (options: Partial<ClientOptions> = {}) => createClient({ baseUrl: BASE, token: TOKEN, maxRetries: 2, ...options });
const unavailable = () => HttpResponse.json({ code: "503", message: "Scheduled Maintenance" }, { status: 503, headers: { "Retry-After": "0" } });

let server: RealServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("interaction ids", () => {
  it("sends a random UUID v4 per call, the same on every attempt of that call", async () => {
    on("get", CONSENT, (_, n) => (n === 2 ? unavailable() : HttpResponse.json(grant)));
    await client().consents.get("c-1");
    await client().consents.get("c-1");
    const ids = seen.map((s) => s.headers["x-fapi-interaction-id"]);
    expect(ids).toHaveLength(3);
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(ids[0]).not.toBe(ids[1]);
    expect(ids[2]).toBe(ids[1]); // the retry of the second call
  });

  it("RequestOptions.interactionId sets it; interactionIds: false sends none unless a call sets one", async () => {
    on("get", CONSENT, () => HttpResponse.json(grant));
    await client().consents.get("c-1", { interactionId: "mine-1" });
    await client({ interactionIds: false }).consents.get("c-1");
    await client({ interactionIds: false }).consents.get("c-1", { interactionId: "mine-2" });
    expect(seen.map((s) => s.headers["x-fapi-interaction-id"])).toEqual(["mine-1", undefined, "mine-2"]);
  });

  it("an unusable interactionId is refused before sending", async () => {
    const error = await rejectionOf(client().consents.get("c-1", { interactionId: "a\r\nb" }));
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues).toEqual([{ path: "interactionId", message: "must be a non-empty string valid in an HTTP header" }]);
    expect(seen).toHaveLength(0);
  });

  it("FdxApiError.interactionId is the response's header, else the id sent", async () => {
    on("get", CONSENT, (_, n) =>
      HttpResponse.json(
        { code: "NotFound", message: "resource not found" },
        { status: 404, headers: n === 1 ? { "x-fapi-interaction-id": "from-server" } : {} },
      ),
    );
    const echoed = (await rejectionOf(client().consents.get("c-1", { interactionId: "sent-1" }))) as FdxNotFoundError;
    expect(echoed.interactionId).toBe("from-server");
    const own = (await rejectionOf(client().consents.get("c-1", { interactionId: "sent-2" }))) as FdxNotFoundError;
    expect(own.interactionId).toBe("sent-2");
  });

  it("connection errors, timeouts and bad responses carry the id sent", async () => {
    server = await startHttp((req, res) => {
      if (req.url?.endsWith("/hang")) return;
      if (req.url?.endsWith("/reset")) return req.socket.destroy();
      res.writeHead(200, { "content-type": "application/json" }).end("{not json");
    });
    // Only the call meant to time out gets a short timeout: the others must be answered, however loaded the machine.
    const c = createClient({ baseUrl: server.url, token: TOKEN, maxRetries: 0 });
    const timeout = await rejectionOf(c.consents.get("hang", { interactionId: "i-timeout", timeoutMs: 200 }));
    expect(timeout).toBeInstanceOf(FdxTimeoutError);
    expect((timeout as FdxTimeoutError).interactionId).toBe("i-timeout");
    const reset = await rejectionOf(c.consents.get("reset", { interactionId: "i-reset" }));
    expect(reset).toBeInstanceOf(FdxConnectionError);
    expect((reset as FdxConnectionError).interactionId).toBe("i-reset");
    const bad = await rejectionOf(c.consents.get("c-1", { interactionId: "i-bad" }));
    expect(bad).toBeInstanceOf(FdxResponseError);
    expect((bad as FdxResponseError).interactionId).toBe("i-bad");
    expect((bad as FdxResponseError).issues).toEqual([{ path: "", message: expect.stringMatching(/^response body is not valid JSON \(.+\)$/) }]);
  });

  it("a platform error whose cause is not an object is described by its own message", async () => {
    const fetch = async () => Promise.reject(new TypeError("fetch failed", { cause: "socket hang up" }));
    const error = (await rejectionOf(createClient({ baseUrl: BASE, token: TOKEN, fetch, maxRetries: 0 }).consents.get("c-1"))) as FdxConnectionError;
    expect(error).toBeInstanceOf(FdxConnectionError);
    expect(error.message).toBe(`GET ${CONSENT} failed: fetch failed`);
  });

  it("a 2xx body made invalid JSON only by the token it echoes gives no parser excerpt, which would quote the token", async () => {
    // A tab may sit inside a header value, but not raw inside a JSON string: redacted, the body parses.
    const token = "tab\tinside-Token-42";
    on(
      "get",
      CONSENT,
      (request) => new HttpResponse(`{"echo":"${request.headers.get("authorization")}"}`, { headers: { "content-type": "application/json" } }),
    );
    const error = (await rejectionOf(createClient({ baseUrl: BASE, token, maxRetries: 0 }).consents.get("c-1"))) as FdxResponseError;
    expect(error).toBeInstanceOf(FdxResponseError);
    expect(error.issues).toEqual([{ path: "", message: "response body is not valid JSON" }]);
    expect(error.cause).toBeUndefined();
  });

  it("so do errors met while reading a 2xx body, each with its own message and issues", async () => {
    server = await startHttp((req, res) => {
      const route = req.url?.split("/").pop();
      if (route === "empty") return res.writeHead(200, { "content-type": "application/json" }).end();
      if (route === "big") return res.writeHead(200, { "content-type": "application/json" }).end(`"${"x".repeat(64)}"`);
      if (route === "array") return res.writeHead(200, { "content-type": "application/json" }).end("[]");
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"id":');
      // "stall" sends nothing more; "cut" drops the connection mid-body.
      if (route === "cut") setTimeout(() => req.socket.destroy(), 20);
    });
    // Only the call meant to time out gets a short timeout: "cut" must meet its dropped connection, and the others their
    // answers, before any timeout, however loaded the machine.
    const c = createClient({ baseUrl: server.url, token: TOKEN, maxRetries: 0, maxResponseBytes: 32 });
    const url = (id: string) => `${server!.url}/consents/v1/${id}`;

    const stall = (await rejectionOf(c.consents.get("stall", { interactionId: "i-stall", timeoutMs: 300 }))) as FdxTimeoutError;
    expect(stall).toBeInstanceOf(FdxTimeoutError);
    expect(stall.message).toBe(`GET ${url("stall")} timed out after 300 ms while reading the response`);
    expect(stall.interactionId).toBe("i-stall");

    const cut = (await rejectionOf(c.consents.get("cut", { interactionId: "i-cut" }))) as FdxConnectionError;
    expect(cut).toBeInstanceOf(FdxConnectionError);
    expect(cut).not.toBeInstanceOf(FdxTimeoutError);
    expect(cut.message.startsWith(`GET ${url("cut")} failed while reading the response: `)).toBe(true);
    expect(cut.interactionId).toBe("i-cut");
    expect(cut.cause).toBeDefined();

    const empty = (await rejectionOf(c.consents.get("empty", { interactionId: "i-empty" }))) as FdxResponseError;
    expect(empty).toBeInstanceOf(FdxResponseError);
    expect(empty.issues).toEqual([{ path: "", message: "response body is empty" }]);
    expect(empty.interactionId).toBe("i-empty");

    const big = (await rejectionOf(c.consents.get("big", { interactionId: "i-big" }))) as FdxResponseError;
    expect(big.issues).toEqual([{ path: "", message: "response body is larger than maxResponseBytes (32 bytes)" }]);
    expect(big.interactionId).toBe("i-big");

    const array = (await rejectionOf(c.consents.get("array", { interactionId: "i-array" }))) as FdxResponseError;
    expect(array).toBeInstanceOf(FdxResponseError);
    expect(array.message).toBe("Unexpected response (HTTP 200): response body must be a JSON object");
    expect(array.issues).toEqual([{ path: "", message: "response body must be a JSON object" }]);
    expect(array.interactionId).toBe("i-array");
  });
});

describe("hooks", () => {
  it("onRequest, onResponse and onRetry see every attempt, in order, with the same interaction id", async () => {
    on("get", CONSENT, (_, n) => (n === 1 ? unavailable() : HttpResponse.json(grant)));
    const events: string[] = [];
    const hooks: ClientHooks = {
      onRequest: (e) => void events.push(`request ${e.method} ${e.url} #${e.attempt} ${e.interactionId}`),
      onResponse: (e) => {
        expect(e.durationMs).toBeGreaterThanOrEqual(0);
        expect(e.headers.get("content-type")).toContain("application/json");
        events.push(`response ${e.status} #${e.attempt} ${e.interactionId}`);
      },
      onRetry: (e) => {
        expect(e.error).toBeInstanceOf(FdxMaintenanceError);
        events.push(`retry #${e.attempt} in ${e.delayMs} ms ${e.interactionId}`);
      },
    };
    await client({ hooks }).consents.get("c-1", { interactionId: "iid" });
    expect(events).toEqual([
      `request GET ${CONSENT} #1 iid`,
      "response 503 #1 iid",
      "retry #1 in 0 ms iid",
      `request GET ${CONSENT} #2 iid`,
      "response 200 #2 iid",
    ]);
  });

  it("onRequest may add headers, but never sees the token nor replaces it", async () => {
    on("get", CONSENT, () => HttpResponse.json(grant));
    const seenByHook: string[] = [];
    const onRequest: ClientHooks["onRequest"] = async (e) => {
      seenByHook.push(...[...e.headers].map(([name, value]) => `${name}: ${value}`));
      e.headers.set("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
      e.headers.set("Authorization", "Bearer forged");
    };
    await client({ hooks: { onRequest } }).consents.get("c-1", { interactionId: "iid" });
    expect(seenByHook).toEqual(["accept: application/json", "x-fapi-interaction-id: iid"]);
    expect(seen[0]?.headers.traceparent).toBe("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("a throwing hook fails the call with an FdxError whose cause is its error, without retrying", async () => {
    on("get", CONSENT, () => unavailable());
    const boom = new Error("hook broke");
    const onRequest = vi.fn(() => {
      throw boom;
    });
    const before = (await rejectionOf(client({ hooks: { onRequest } }).consents.get("c-1"))) as FdxError;
    expect(before).toBeInstanceOf(FdxError);
    expect(before.message).toBe("The onRequest hook threw (see cause)");
    expect(before.cause).toBe(boom);
    expect(seen).toHaveLength(0); // a throwing onRequest sends nothing

    const onRetry = vi.fn(async () => Promise.reject(boom));
    const during = (await rejectionOf(client({ hooks: { onRetry } }).consents.get("c-1"))) as FdxError;
    expect(during.cause).toBe(boom);
    expect(onRetry).toHaveBeenCalledTimes(1);
    expect(seen).toHaveLength(1);

    const onResponse = () => Promise.reject(boom);
    const after = (await rejectionOf(client({ hooks: { onResponse } }).consents.get("c-1"))) as FdxError;
    expect(after.message).toBe("The onResponse hook threw (see cause)");
    expect(seen).toHaveLength(2);
  });

  it("an onResponse hook that throws on an answer without a body (204) fails the call the same way", async () => {
    const boom = new Error("hook broke");
    const fetch = async () => new Response(null, { status: 204 });
    const c = createClient({ baseUrl: BASE, token: TOKEN, fetch, hooks: { onResponse: () => Promise.reject(boom) } });
    const error = (await rejectionOf(c.subscriptions.delete("s-1"))) as FdxError;
    expect(error).toBeInstanceOf(FdxError);
    expect(error.message).toBe("The onResponse hook threw (see cause)");
    expect(error.cause).toBe(boom);
  });

  it("onRetry is told the backoff of each retry without a Retry-After: full jitter over 0.5 s, then 1 s", async () => {
    on("get", CONSENT, (_, n) => (n < 3 ? HttpResponse.json({ code: "500", message: "x" }, { status: 500 }) : HttpResponse.json(grant)));
    const random = vi.spyOn(Math, "random").mockReturnValue(0.1);
    try {
      const delays: number[] = [];
      await client({ hooks: { onRetry: (e) => void delays.push(e.delayMs) } }).consents.get("c-1");
      expect(delays).toEqual([50, 100]);
    } finally {
      random.mockRestore();
    }
  });

  it("runs for pages and downloads too", async () => {
    const PRODUCTS = `${BASE}/statements/v2/p-1/a-1`;
    on("get", PRODUCTS, () => HttpResponse.json({ statements: [{ statementId: "s-1" }], links: {} }));
    on("get", `${BASE}/docs/s-1`, () => new HttpResponse("%PDF-1.7", { headers: { "Content-Type": "application/pdf" } }));
    const urls: string[] = [];
    const c = client({ hooks: { onResponse: (e) => void urls.push(`${e.status} ${e.url}`) } });
    await c.statements.list({ providerId: "p-1", accountId: "a-1" }).toArray();
    await (await c.statements.download("/docs/s-1")).arrayBuffer();
    expect(urls).toEqual([`200 ${PRODUCTS}`, `200 ${BASE}/docs/s-1`]);
  });

  it("hooks that are not functions are refused by createClient", () => {
    const error = (() => {
      try {
        client({ hooks: { onRetry: "log" as never } });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues).toEqual([{ path: "hooks.onRetry", message: "must be a function" }]);
  });
});

describe("redirects", () => {
  it("a JSON call follows no redirect: FdxLinkError with the Location, and nothing reaches the other place", async () => {
    let elsewhere = 0;
    const other = await startHttp((_, res) => {
      elsewhere++;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ subscriptionId: "forged" }));
    });
    server = await startHttp((_, res) => res.writeHead(307, { location: `${other.url}/collect` }).end());
    const c = createClient({ baseUrl: server.url, token: TOKEN, maxRetries: 2 });
    const error = (await rejectionOf(
      c.subscriptions.create({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://me.example/hook" }),
    )) as FdxLinkError;
    expect(error).toBeInstanceOf(FdxLinkError);
    expect(error.href).toBe(`${other.url}/collect`);
    expect(error.message).toBe(`POST ${server.url}/notifications/v1/subscriptions answered 307: calls that answer JSON follow no redirect`);
    expect(server.count).toBe(1); // not retried
    expect(elsewhere).toBe(0);
    await other.close();
  });

  it("a page answered with a 302 is refused the same way", async () => {
    server = await startHttp((_, res) => res.writeHead(302, { location: "https://evil.test/page" }).end());
    const c = createClient({ baseUrl: server.url, token: TOKEN });
    const error = (await rejectionOf(c.statements.list({ providerId: "p", accountId: "a" }).toArray())) as FdxLinkError;
    expect(error).toBeInstanceOf(FdxLinkError);
    expect(error.href).toBe("https://evil.test/page");
  });
});

describe("limits", () => {
  it("a JSON body above maxResponseBytes after decompression rejects, and reading stops", async () => {
    // A gzip bomb made on the fly: 1 GiB of spaces, produced only as fast as the client reads.
    const total = 1024 * 1024 * 1024;
    let produced = 0;
    server = await startHttp((_, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      const spaces = Buffer.alloc(1024 * 1024, " ");
      const source = new Readable({
        read() {
          if (produced >= total) return void this.push(null);
          produced += spaces.length;
          this.push(spaces);
        },
      });
      source.pipe(createGzip()).pipe(res);
      res.on("close", () => source.destroy());
    });
    const c = createClient({ baseUrl: server.url, token: TOKEN, maxResponseBytes: 1024 * 1024 });
    const error = (await rejectionOf(c.consents.get("c-1"))) as FdxResponseError;
    expect(error).toBeInstanceOf(FdxResponseError);
    expect(error.issues).toEqual([{ path: "", message: "response body is larger than maxResponseBytes (1048576 bytes)" }]);
    expect(server.count).toBe(1); // not retried
    // Reading stopped near the cap: the server was asked for a small part of its gigabyte.
    expect(produced).toBeLessThan(total / 8);
  });

  it("a compressed body that stalls mid-stream times out, and one the caller aborts mid-read ends as an abort", async () => {
    // Half of a gzip stream, flushed, then nothing: the decoder has a part of the body and waits for more.
    const packed = gzipSync(JSON.stringify({ id: "c-1", status: "ACTIVE", pad: "x".repeat(50_000) }));
    server = await startHttp((_, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.write(packed.subarray(0, packed.length >> 1));
    });
    const c = createClient({ baseUrl: server.url, token: TOKEN, maxRetries: 0, timeoutMs: 300 });
    const stall = (await rejectionOf(c.consents.get("c-1"))) as FdxTimeoutError;
    expect(stall).toBeInstanceOf(FdxTimeoutError);
    expect(stall.message).toBe(`GET ${server.url}/consents/v1/c-1 timed out after 300 ms while reading the response`);

    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("the user left")), 100);
    const started = Date.now();
    const aborted = (await rejectionOf(
      createClient({ baseUrl: server.url, token: TOKEN, timeoutMs: 10_000 }).consents.get("c-1", { signal: controller.signal }),
    )) as FdxAbortError;
    expect(aborted).toBeInstanceOf(FdxAbortError);
    expect((aborted.cause as Error).message).toBe("the user left");
    // Ended by the abort, long before the attempt's 10 s timeout.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("maxResponseBytes must be an integer >= 1", () => {
    expect(() => client({ maxResponseBytes: 0 })).toThrow(FdxValidationError);
    expect(() => client({ maxResponseBytes: 1.5 })).toThrow(/maxResponseBytes: must be an integer >= 1/);
  });

  it("fifty calls sharing one signal while waiting out a Retry-After add no listener to it", async () => {
    on("get", CONSENT, (_, n) =>
      n <= 50 ? HttpResponse.json({ code: "1207" }, { status: 429, headers: { "Retry-After": "0.05" } }) : HttpResponse.json(grant),
    );
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      const shared = new AbortController();
      const c = client();
      const calls = Array.from({ length: 50 }, () => c.consents.get("c-1", { signal: shared.signal }));
      await expect(Promise.all(calls)).resolves.toHaveLength(50);
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.map((w) => w.name)).not.toContain("MaxListenersExceededWarning");
  });

  it("a Retry-After of exactly 60 s is waited out; above it the error surfaces", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    try {
      on("get", CONSENT, (_, n) =>
        n === 1 ? HttpResponse.json({ code: "1207" }, { status: 429, headers: { "Retry-After": "60" } }) : HttpResponse.json(grant),
      );
      const pending = client().consents.get("c-1");
      await vi.advanceTimersByTimeAsync(60_000);
      await expect(pending).resolves.toEqual(grant);
      on("get", `${BASE}/consents/v1/c-2`, () => HttpResponse.json({ code: "1207" }, { status: 429, headers: { "Retry-After": "61" } }));
      const error = (await rejectionOf(client().consents.get("c-2"))) as FdxRateLimitError;
      expect(error.retryAfterMs).toBe(61_000);
    } finally {
      vi.useRealTimers();
    }
  });
});
