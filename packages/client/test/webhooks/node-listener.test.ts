import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { toNodeListener } from "../../src/node/index.js";
import { createWebhookHandler, type Notification } from "../../src/webhooks/index.js";
import { consentNotification, copyOf } from "./fixtures.js";

const body = JSON.stringify(consentNotification);
const servers: http.Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

/** A real HTTP server on 127.0.0.1 serving the listener; counts what it read from each connection. */
async function serve(listener: http.RequestListener) {
  const sockets: Socket[] = [];
  const server = http.createServer(listener);
  server.on("connection", (socket) => sockets.push(socket));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/webhooks`, port, bytesRead: () => sockets.reduce((n, s) => n + s.bytesRead, 0) };
}

function receiver(options: { maxBodyBytes?: number; fail?: boolean } = {}) {
  const calls: Notification[] = [];
  const handler = createWebhookHandler({
    onNotification: async (n) => {
      if (options.fail) throw new Error("downstream unavailable");
      calls.push(n);
    },
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
  });
  return { listener: toNodeListener(handler), calls };
}

function postJson(url: string, text: string, headers: Record<string, string> = {}) {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: text });
}

describe("toNodeListener(createWebhookHandler(...)) over real HTTP", () => {
  it("answers 200 and hands the notification to onNotification", async () => {
    const { listener, calls } = receiver();
    const { url } = await serve(listener);
    const response = await postJson(url, body, { "content-type": "application/json; charset=utf-8" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({ received: true });
    expect(calls).toEqual([copyOf(consentNotification)]);
  });

  it("serves several deliveries on one kept-alive connection", async () => {
    const { listener, calls } = receiver();
    const { url } = await serve(listener);
    for (let i = 0; i < 3; i++) expect((await postJson(url, body)).status).toBe(200);
    expect(calls).toHaveLength(3);
  });

  it("answers 405 with Allow: POST", async () => {
    const { listener, calls } = receiver();
    const { url } = await serve(listener);
    const response = await fetch(url);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(await response.json()).toEqual({ error: "method not allowed" });
    const put = await fetch(url, { method: "PUT", headers: { "content-type": "application/json" }, body });
    expect(put.status).toBe(405);
    expect(calls).toHaveLength(0);
  });

  it("answers 415 to a missing or non-JSON content type", async () => {
    const { listener, calls } = receiver();
    const { url } = await serve(listener);
    expect((await postJson(url, body, { "content-type": "text/plain" })).status).toBe(415);
    expect((await fetch(url, { method: "POST", body: new Blob([body]) })).status).toBe(415);
    expect(calls).toHaveLength(0);
  });

  it("answers 400 to an invalid body", async () => {
    const { listener, calls } = receiver();
    const { url } = await serve(listener);
    const response = await postJson(url, '{"category":"CONSENT"}');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "invalid notification" });
    expect(calls).toHaveLength(0);
  });

  it("answers 500 when onNotification throws, without echoing anything", async () => {
    const { listener } = receiver({ fail: true });
    const { url } = await serve(listener);
    const response = await postJson(url, body);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('{"error":"notification not processed"}');
  });

  it("answers 413 by Content-Length without waiting for the body", async () => {
    const { listener, calls } = receiver({ maxBodyBytes: 1024 });
    const { url, bytesRead } = await serve(listener);
    // Declares 50 MB but sends only a few bytes and never ends the body: only a Content-Length check can answer.
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(url, {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(50_000_000) },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.write("{");
    });
    expect(status).toBe(413);
    expect(calls).toHaveLength(0);
    expect(bytesRead()).toBeLessThan(4096);
  });

  it("answers 413 to an endless chunked body and cuts it off instead of reading it", async () => {
    const maxBodyBytes = 64 * 1024;
    const { listener, calls } = receiver({ maxBodyBytes });
    const { url, bytesRead } = await serve(listener);
    const planned = 512 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 0x20);

    let status: number | undefined;
    const req = http.request(url, { method: "POST", headers: { "content-type": "application/json" } }); // no length: chunked
    req.on("response", (res) => {
      status = res.statusCode;
      res.resume();
    });
    let isCut = false;
    req.on("error", () => (isCut = true)).on("close", () => (isCut = true));
    // Keeps uploading whatever the answer, with backpressure, so `written` is what the
    // connection took. A server that read bodies to the end would take all of it.
    let written = 0;
    while (written < planned && !isCut) {
      if (!req.write(chunk)) await drainOrClose(req);
      written += chunk.length;
    }
    req.destroy();

    expect(status).toBe(413);
    expect(calls).toHaveLength(0);
    // About the limit plus what sat in socket buffers: far from the planned upload.
    expect(written).toBeLessThan(planned / 8);
    expect(bytesRead()).toBeLessThan(planned / 8);
  });

  it("answers 400 instead of hanging when a body parser already read the body", async () => {
    const { listener, calls } = receiver();
    const { url } = await serve((req, res) => {
      req.resume(); // what express.json() and friends do
      req.on("end", () => listener(req, res));
    });
    const response = await postJson(url, body);
    expect(response.status).toBe(400);
    expect(calls).toHaveLength(0);
  });

  it("streams a large response body back and copies status and headers", async () => {
    const big = "x".repeat(3 * 1024 * 1024);
    const listener = toNodeListener(async (request) => {
      const headers = new Headers({ "content-type": "text/plain", "x-method": request.method });
      headers.append("set-cookie", "a=1");
      headers.append("set-cookie", "b=2");
      return new Response(big, { status: 202, headers });
    });
    const { url } = await serve(listener);
    const response = await fetch(url, { method: "PATCH", body: "hi" });
    expect(response.status).toBe(202);
    expect(response.headers.get("x-method")).toBe("PATCH");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await response.text()).toBe(big);
  });

  it("gives the handler the method, URL, headers and the whole body", async () => {
    let seen: { method: string; url: string; header: string | null; text: string } | undefined;
    const listener = toNodeListener(async (request) => {
      seen = { method: request.method, url: request.url, header: request.headers.get("x-test"), text: await request.text() };
      return new Response(null, { status: 204 });
    });
    const { url, port } = await serve(listener);
    const payload = "é".repeat(200_000);
    const response = await fetch(`${url}?a=1`, { method: "POST", headers: { "x-test": "yes" }, body: payload });
    expect(response.status).toBe(204);
    expect(seen).toEqual({ method: "POST", url: `http://127.0.0.1:${port}/webhooks?a=1`, header: "yes", text: payload });
  });

  it("answers 500 when the handler throws or rejects, and raises no unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const throwing = await serve(
        toNodeListener(() => {
          throw new Error("sync boom");
        }),
      );
      const rejecting = await serve(toNodeListener(async () => Promise.reject(new Error("async boom"))));
      const notAResponse = await serve(toNodeListener(async () => "nope" as unknown as Response));
      for (const { url } of [throwing, rejecting, notAResponse]) {
        const response = await postJson(url, body);
        expect(response.status).toBe(500);
        expect(await response.json()).toEqual({ error: "internal error" });
      }
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});

/** Resolves when the request can take more, or when its connection is gone. */
function drainOrClose(req: http.ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off("drain", done).off("close", done).off("error", done);
      resolve();
    };
    req.on("drain", done).on("close", done).on("error", done);
  });
}
