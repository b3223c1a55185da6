// toNodeListener at the edges of HTTP: requests without or with a malformed
// Host, clients that go away mid-request or mid-response, response bodies that
// fail half way, and the status text.
import net from "node:net";
import { describe, expect, it } from "vitest";
import { FdxValidationError } from "../../src/index.js";
import { toNodeListener } from "../../src/node/index.js";
import * as webhooks from "../../src/webhooks/index.js";
import { useListenerServers } from "../support/listener.js";

const serve = useListenerServers();

/** Sends raw bytes on a new connection; resolves with everything the server sent until it closed. */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.end(text));
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("close", () => resolve(received));
    // A reset connection is an answer too: what arrived before it counts.
    socket.on("error", () => resolve(received));
  });
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe("the Request handed to the handler", () => {
  it("uses localhost when an HTTP/1.0 request has no Host header", async () => {
    let url = "";
    const port = await serve((request) => {
      url = request.url;
      return new Response("ok");
    });
    const answer = await raw(port, "GET /hooks?x=1 HTTP/1.0\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(url).toBe("http://localhost/hooks?x=1");
  });

  it("still serves the path when the Host header is malformed", async () => {
    let url = "";
    const port = await serve((request) => {
      url = request.url;
      return new Response("ok");
    });
    const answer = await raw(port, "GET /hooks HTTP/1.1\r\nHost: bad host:x\r\nConnection: close\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(url).toBe("http://localhost/hooks");
  });

  it("takes an absolute-form target's own host, not a malformed Host header", async () => {
    let url = "";
    const port = await serve((request) => {
      url = request.url;
      return new Response("ok");
    });
    await raw(port, "GET http://elsewhere/x HTTP/1.1\r\nHost: bad host\r\nConnection: close\r\n\r\n");
    expect(url).toBe("http://elsewhere/x");
  });

  it("errors the body stream when the client goes away mid-body", async () => {
    const outcome = deferred<unknown>();
    const port = await serve(async (request) => {
      try {
        await request.arrayBuffer();
        outcome.resolve("read to the end");
      } catch (error) {
        outcome.resolve(error);
      }
      return new Response(null, { status: 204 });
    });
    const socket = net.connect(port, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    socket.write(`POST /hooks HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n${"a".repeat(100)}`);
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    const error = await outcome.promise;
    expect(error).toBeInstanceOf(Error);
  });
});

describe("the response", () => {
  it("copies the status text", async () => {
    const port = await serve(() => new Response("later", { status: 202, statusText: "Queued For Later" }));
    const answer = await raw(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 202 Queued For Later");
  });

  it("sends headers but no body to a HEAD request", async () => {
    const port = await serve(() => new Response("body text", { headers: { "x-kind": "head" } }));
    const answer = await raw(port, "HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(answer).toMatch(/x-kind: head/);
    expect(answer).not.toContain("body text");
  });

  it("cuts the connection when the response body fails half way", async () => {
    const port = await serve(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new TextEncoder().encode("first part;"));
            },
            pull(controller) {
              controller.error(new Error("disk read failed"));
            },
          }),
        ),
    );
    const answer = await raw(port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    // Whatever arrived, the chunked body never completes (no terminating zero-length chunk).
    expect(answer).not.toMatch(/\r\n0\r\n\r\n$/);
  });

  it("aborts the handler's signal and cancels an endless body when the client disconnects", async () => {
    const aborted = deferred();
    const cancelled = deferred();
    const started = deferred();
    const port = await serve((request) => {
      request.signal.addEventListener("abort", () => aborted.resolve());
      let n = 0;
      return new Response(
        new ReadableStream<Uint8Array>({
          async pull(controller) {
            started.resolve();
            await new Promise((r) => setTimeout(r, 5));
            controller.enqueue(new TextEncoder().encode(`tick ${n++}\n`));
          },
          cancel() {
            cancelled.resolve();
          },
        }),
      );
    });
    const socket = net.connect(port, "127.0.0.1", () => socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    socket.on("error", () => {});
    await started.promise;
    await new Promise((r) => setTimeout(r, 30));
    socket.destroy();
    await Promise.all([aborted.promise, cancelled.promise]);
  });
});

describe("a request body that does not arrive in time (bodyTimeoutMs)", () => {
  /** Sends `text` and keeps the connection open; resolves with what the server sent once it closed the connection. */
  function stall(port: number, text: string): Promise<string> {
    return new Promise((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => socket.write(text));
      let received = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (received += chunk));
      socket.on("close", () => resolve(received));
      socket.on("error", () => resolve(received));
    });
  }
  const { createWebhookHandler } = webhooks;
  const head = (length: string) => `POST /hooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${length}\r\n`;

  it.each([
    ["a declared length", `${head("Content-Length: 1000\r\n")}{"category":`],
    ["chunks", `${head("Transfer-Encoding: chunked\r\n")}5\r\n{"cat\r\n`],
  ])("is answered 408 and its connection closed, for a body with %s that stalls; the handler's work is dropped", async (_, text) => {
    let called = 0;
    const port = await serve(
      createWebhookHandler({
        onNotification: () => {
          called++;
        },
      }),
      { bodyTimeoutMs: 150 },
    );
    const answer = await stall(port, text);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain('{"error":"request body timed out"}');
    expect(called).toBe(0);
  });

  it("leaves a body that arrives in time, and a handler slower than the timeout once the body is in, alone", async () => {
    const port = await serve(
      async (request) => {
        const text = await request.text();
        await new Promise((resolve) => setTimeout(resolve, 300));
        return new Response(`got ${text.length}`);
      },
      { bodyTimeoutMs: 150 },
    );
    const answer = await stall(port, `${head("Content-Length: 2\r\nConnection: close\r\n")}{}`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain("got 2");
  });

  it("refuses a timeout that is not an integer >= 1", () => {
    for (const bad of [0, -1, 1.5, "10"]) {
      expect(() => toNodeListener(() => new Response(), { bodyTimeoutMs: bad as number })).toThrow(FdxValidationError);
    }
  });
});
