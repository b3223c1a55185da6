import { describe, expect, it, vi } from "vitest";
import { createWebhookHandler, FdxError, FdxValidationError, type Notification } from "../../src/webhooks/index.js";
import { consentNotification, copyOf } from "./fixtures.js";

const URL_ = "https://receiver.test/webhooks";
const body = JSON.stringify(consentNotification);

function post(init: RequestInit & { duplex?: "half" } = {}): Request {
  return new Request(URL_, { method: "POST", headers: { "content-type": "application/json" }, body, ...init });
}

function setup(onNotification: (n: Notification, r: Request) => unknown = () => {}, maxBodyBytes?: number) {
  const calls: Notification[] = [];
  const handler = createWebhookHandler({
    onNotification: async (n, r) => {
      calls.push(n);
      return onNotification(n, r);
    },
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
  });
  return { handler, calls };
}

/** A body stream that never ends on its own, counting the chunks it was asked for. */
function endlessBody(chunkSize: number) {
  const state = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulled++;
      controller.enqueue(new Uint8Array(chunkSize).fill(0x20));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

describe("createWebhookHandler, called directly", () => {
  it("answers 200 after onNotification resolves, with the parsed notification", async () => {
    let resolveWork!: () => void;
    const work = new Promise<void>((r) => (resolveWork = r));
    const { handler, calls } = setup(() => work);
    let answered = false;
    const pending = handler(post()).then((r) => ((answered = true), r));
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 20));
    expect(answered).toBe(false);
    resolveWork();
    const response = await pending;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({ received: true });
    expect(calls[0]).toEqual(copyOf(consentNotification));
  });

  it("hands onNotification customFields as an array when the body sends one object (FDX 5.2)", async () => {
    const { handler, calls } = setup();
    const n = copyOf(consentNotification);
    n.notificationPayload.customFields = { name: "reason", value: "user request" };
    const response = await handler(post({ body: JSON.stringify(n) }));
    expect(response.status).toBe(200);
    expect(calls[0]?.notificationPayload.customFields).toEqual([{ name: "reason", value: "user request" }]);
  });

  it("passes the request to onNotification", async () => {
    let seen: Request | undefined;
    const { handler } = setup((_, r) => void (seen = r));
    await handler(post({ headers: { "content-type": "application/json", "x-secret": "s3" } }));
    expect(seen?.headers.get("x-secret")).toBe("s3");
  });

  it.each(["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"])("answers 405 with Allow: POST to %s", async (method) => {
    const { handler, calls } = setup();
    const hasBody = method !== "GET" && method !== "HEAD";
    const response = await handler(new Request(URL_, { method, headers: { "content-type": "application/json" }, ...(hasBody ? { body } : {}) }));
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(calls).toHaveLength(0);
  });

  it.each([
    ["application/json", 200],
    ["application/json; charset=utf-8", 200],
    ["Application/JSON;charset=UTF-8", 200],
    ["application/cloudevents+json", 200],
    ["application/merge-patch+json; charset=utf-8", 200],
    ["application/json ; charset=utf-8", 200],
    ["text/plain", 415],
    ["text/json", 415],
    ["application/x-www-form-urlencoded", 415],
    ["application/jsonp", 415],
    ["application/+json", 415],
    ["multipart/form-data; boundary=x", 415],
    ["json", 415],
  ])("with Content-Type %s answers %i", async (contentType, status) => {
    const { handler, calls } = setup();
    const response = await handler(post({ headers: { "content-type": contentType } }));
    expect(response.status).toBe(status);
    expect(calls).toHaveLength(status === 200 ? 1 : 0);
  });

  it("answers 415 without a Content-Type", async () => {
    const { handler, calls } = setup();
    // A Blob without a type makes fetch send no Content-Type.
    const response = await handler(new Request(URL_, { method: "POST", body: new Blob([body]) }));
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.status).toBe(415);
    expect(calls).toHaveLength(0);
  });

  it("answers 413 by Content-Length before reading the body", async () => {
    // Small chunks: counting would need more than ten of them to pass the limit.
    const { stream, state } = endlessBody(10);
    const { handler, calls } = setup(undefined, 100);
    const request = new Request(URL_, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": "5000" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    const response = await handler(request);
    expect(response.status).toBe(413);
    expect(calls).toHaveLength(0);
    expect(state.pulled).toBeLessThanOrEqual(1); // at most the stream's own prefetch
  });

  it("answers 413 to an endless body once it passes the limit, and cancels it", async () => {
    const { stream, state } = endlessBody(1000);
    const { handler, calls } = setup(undefined, 10_000);
    const response = await handler(post({ body: stream, duplex: "half" }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "body larger than 10000 bytes" });
    expect(calls).toHaveLength(0);
    expect(state.pulled).toBeLessThan(20);
    await vi.waitFor(() => expect(state.cancelled).toBe(true));
  });

  it("marks its answers not to be stored, the 405 with its Allow too", async () => {
    const { handler } = setup();
    const ok = await handler(post());
    expect([ok.status, ok.headers.get("cache-control"), await ok.text()]).toEqual([200, "no-store", '{"received":true}']);
    const refused = await handler(new Request(URL_));
    expect([refused.status, refused.headers.get("cache-control"), refused.headers.get("allow")]).toEqual([405, "no-store", "POST"]);
  });

  it("reads a body of declared length with arrayBuffer(), never opening it as a stream", async () => {
    const { handler, calls } = setup();
    const request = post({ headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) } });
    const touched: string[] = [];
    const watched = new Proxy(request, {
      get(target, key) {
        if (key === "body" || key === "arrayBuffer") touched.push(key);
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const response = await handler(watched);
    expect(response.status).toBe(200);
    expect(calls).toEqual([consentNotification]);
    expect(touched).toEqual(["arrayBuffer"]);
  });

  it("refuses with 413 a Request built in code whose Content-Length understates its body", async () => {
    const { handler, calls } = setup(undefined, 100);
    const response = await handler(post({ headers: { "content-type": "application/json", "content-length": "10" }, body: " ".repeat(101) }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "body larger than 100 bytes" });
    expect(calls).toHaveLength(0);
  });

  it("counts and cuts off the body when Transfer-Encoding is declared beside a Content-Length", async () => {
    // 100 kB in 1 kB chunks: read whole (as arrayBuffer() would), all 100 would be pulled.
    const state = { pulled: 0, cancelled: false };
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (++state.pulled > 100) controller.close();
        else controller.enqueue(new Uint8Array(1000).fill(0x20));
      },
      cancel() {
        state.cancelled = true;
      },
    });
    const { handler, calls } = setup(undefined, 10_000);
    const headers = { "content-type": "application/json", "content-length": "10", "transfer-encoding": "chunked" };
    const response = await handler(post({ headers, body: stream, duplex: "half" }));
    expect(response.status).toBe(413);
    expect(calls).toHaveLength(0);
    expect(state.pulled).toBeLessThan(20);
    await vi.waitFor(() => expect(state.cancelled).toBe(true));
  });

  it("accepts a body of exactly maxBodyBytes and refuses one byte more", async () => {
    const exact = createWebhookHandler({ onNotification: () => {}, maxBodyBytes: Buffer.byteLength(body) });
    expect((await exact(post())).status).toBe(200);
    const under = createWebhookHandler({ onNotification: () => {}, maxBodyBytes: Buffer.byteLength(body) - 1 });
    expect((await under(post())).status).toBe(413);
  });

  it("counts bytes, not characters", async () => {
    const n = copyOf(consentNotification);
    n.publisher.name = "€".repeat(400); // 1200 bytes in UTF-8
    const text = JSON.stringify(n);
    const handler = createWebhookHandler({ onNotification: () => {}, maxBodyBytes: text.length + 100 });
    const response = await handler(post({ body: new TextEncoder().encode(text), headers: { "content-type": "application/json" } }));
    expect(response.status).toBe(413);
  });

  it.each([
    ["not JSON", "{not json"],
    ["empty", ""],
    ["not an object", "[1,2]"],
    ["missing notificationPayload", JSON.stringify({ category: "CONSENT", type: "CONSENT_REVOKED" })],
  ])("answers 400 to a body that is %s, without calling onNotification", async (_, text) => {
    const { handler, calls } = setup();
    const response = await handler(post({ body: text }));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "invalid notification" });
    expect(calls).toHaveLength(0);
  });

  it("never echoes the request body", async () => {
    const { handler } = setup(() => {
      throw new Error("boom secret-in-error");
    });
    const marker = "secret-marker-8271";
    for (const text of [`{"category":"${marker}"`, JSON.stringify({ ...consentNotification, note: marker })]) {
      const response = await handler(post({ body: text }));
      const answer = await response.text();
      expect(answer).not.toContain(marker);
      expect(answer).not.toContain("secret-in-error");
      expect(answer.length).toBeLessThan(100);
    }
  });

  it("answers 500 when onNotification throws or rejects, and reports the error to onError", async () => {
    const errors: unknown[] = [];
    const failure = new Error("database down");
    const sync = createWebhookHandler({
      onNotification: () => {
        throw failure;
      },
      onError: (e) => void errors.push(e),
    });
    const async_ = createWebhookHandler({ onNotification: async () => Promise.reject(failure), onError: (e) => void errors.push(e) });
    for (const handler of [sync, async_]) {
      const response = await handler(post());
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ error: "notification not processed" });
    }
    expect(errors).toEqual([failure, failure]);
  });

  it("still answers 500 when onError itself throws", async () => {
    const handler = createWebhookHandler({
      onNotification: () => Promise.reject(new Error("a")),
      onError: () => {
        throw new Error("logger broke");
      },
    });
    expect((await handler(post())).status).toBe(500);
  });

  it("answers 400 when the body stream fails mid-way", async () => {
    const { handler, calls } = setup();
    let sent = false;
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(new TextEncoder().encode(body.slice(0, 20)));
        } else controller.error(new Error("connection reset"));
      },
    });
    const response = await handler(post({ body: failing, duplex: "half" }));
    expect(response.status).toBe(400);
    expect(calls).toHaveLength(0);
  });

  it("refuses bad options up front with FdxValidationError naming the option", () => {
    const cases: [unknown, string, string][] = [
      [{}, "onNotification", "Invalid input: onNotification: must be a function"],
      [{ onNotification: "notify" }, "onNotification", "Invalid input: onNotification: must be a function"],
      [{ onNotification: () => {}, maxBodyBytes: -1 }, "maxBodyBytes", "Invalid input: maxBodyBytes: must be an integer >= 0"],
      [{ onNotification: () => {}, maxBodyBytes: Number.NaN }, "maxBodyBytes", "Invalid input: maxBodyBytes: must be an integer >= 0"],
      [{ onNotification: () => {}, onError: 1 }, "onError", "Invalid input: onError: must be a function"],
      [undefined, "", "Invalid input: options must be an object with onNotification"],
      [null, "", "Invalid input: options must be an object with onNotification"],
    ];
    for (const [options, path, message] of cases) {
      let thrown: unknown;
      try {
        createWebhookHandler(options as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(FdxValidationError);
      expect(thrown).toBeInstanceOf(FdxError);
      expect((thrown as FdxValidationError).issues).toEqual([{ path, message: expect.any(String) }]);
      expect((thrown as Error).message).toBe(message);
    }
  });
});

describe("createWebhookHandler, in a runtime whose Request has no body stream (Firefox)", () => {
  /**
   * Firefox's `Request` has no `body` property: only `arrayBuffer()` and the
   * other readers. A real Request with `body` hidden, counting how often it was read.
   */
  function withoutBodyStream(request: Request) {
    const reads = { arrayBuffer: 0 };
    const shaped = new Proxy(request, {
      get(target, key) {
        if (key === "body") return undefined;
        if (key === "arrayBuffer") {
          return () => {
            reads.arrayBuffer++;
            return target.arrayBuffer();
          };
        }
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    return { request: shaped, reads };
  }

  it("answers 200 to a valid POST, reading the body with arrayBuffer()", async () => {
    const { handler, calls } = setup();
    const { request, reads } = withoutBodyStream(post());
    const response = await handler(request);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(calls).toEqual([consentNotification]);
    expect(reads.arrayBuffer).toBe(1);
  });

  it("answers 413 by Content-Length without reading the body", async () => {
    const { handler, calls } = setup(undefined, 100);
    const headers = { "content-type": "application/json", "content-length": "5000" };
    const { request, reads } = withoutBodyStream(post({ headers }));
    const response = await handler(request);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "body larger than 100 bytes" });
    expect(reads.arrayBuffer).toBe(0);
    expect(calls).toHaveLength(0);
  });

  it("answers 413 to a body past the limit that declared no length", async () => {
    const { handler, calls } = setup(undefined, Buffer.byteLength(body) - 1);
    const { request } = withoutBodyStream(post());
    const response = await handler(request);
    expect(response.status).toBe(413);
    expect(calls).toHaveLength(0);
  });

  it("answers 400 to a body that is not a notification", async () => {
    const { handler, calls } = setup();
    const { request } = withoutBodyStream(post({ body: JSON.stringify({ hello: "world" }) }));
    const response = await handler(request);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "invalid notification" });
    expect(calls).toHaveLength(0);
  });
});

describe("createWebhookHandler's answers, as the sender sees them", () => {
  const answer = async (response: Response) => ({ status: response.status, body: await response.json(), cache: response.headers.get("cache-control") });

  it("names what was wrong in each refusal's JSON body, and never the issues", async () => {
    const { handler } = setup();
    expect(await answer(await handler(post({ headers: { "content-type": "text/plain" } })))).toEqual({
      status: 415,
      body: { error: "content type must be application/json" },
      cache: "no-store",
    });
    expect(await answer(await handler(post({ body: "{" })))).toEqual({ status: 400, body: { error: "invalid notification" }, cache: "no-store" });
    const failing = new ReadableStream({
      pull(controller) {
        controller.error(new Error("sender went away"));
      },
    });
    expect(await answer(await handler(post({ body: failing, duplex: "half" })))).toEqual({
      status: 400,
      body: { error: "body could not be read" },
      cache: "no-store",
    });
  });

  it.each(["/json", "application/", "/"])("refuses the content type %s", async (type) => {
    const { handler } = setup();
    expect((await handler(post({ headers: { "content-type": type } }))).status).toBe(415);
  });

  it("takes maxBodyBytes 0: only an empty body fits, and that is not a notification", async () => {
    const { handler } = setup(undefined, 0);
    expect((await handler(post())).status).toBe(413);
    expect(await answer(await handler(post({ body: "" })))).toEqual({ status: 400, body: { error: "invalid notification" }, cache: "no-store" });
  });

  it("answers 500 when onNotification throws and there is no onError", async () => {
    const { handler } = setup(() => {
      throw new Error("database down");
    });
    expect(await answer(await handler(post()))).toEqual({ status: 500, body: { error: "notification not processed" }, cache: "no-store" });
  });
});
