// Failures msw cannot fake faithfully, against a real HTTP server on 127.0.0.1.
// No durations are asserted: waits are kept short, and what is checked is the
// number of requests that reached the server and the class of the error.
import { afterEach, describe, expect, it } from "vitest";
import {
  createClient,
  FdxAbortError,
  FdxConnectionError,
  FdxError,
  FdxMaintenanceError,
  FdxNotFoundError,
  FdxTimeoutError,
  type ClientOptions,
} from "../../src/index.js";
import { refusedPort, rejectionOf, startHttp, type RealServer } from "../support/http.js";

let server: RealServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const input = { category: "CONSENT", type: "CONSENT_UPDATED", callbackUrl: "https://me.test/h" } as const;
const grant = JSON.stringify({ id: "c-1", status: "ACTIVE" });
const clientFor = (url: string, options: Partial<ClientOptions> = {}) => createClient({ baseUrl: url, token: "tok", maxRetries: 0, ...options });

/** Headers and half the body, then the connection is cut. */
function resetMidBody(res: import("node:http").ServerResponse) {
  res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
  res.write('{"id":"c-1","sta');
  setTimeout(() => res.socket?.destroy(), 20);
}

describe("connection failures", () => {
  it("a socket reset mid-response is an FdxConnectionError, and a GET is retried", async () => {
    server = await startHttp((_, res) => resetMidBody(res));
    const error = await rejectionOf(clientFor(server.url, { maxRetries: 1 }).consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxConnectionError);
    expect(error).not.toBeInstanceOf(FdxTimeoutError);
    expect(server.count).toBe(2);
  });

  it("a GET whose first response was cut succeeds on the retry", async () => {
    server = await startHttp((_, res, n) => {
      if (n === 1) return resetMidBody(res);
      res.writeHead(200, { "content-type": "application/json" }).end(grant);
    });
    await expect(clientFor(server.url, { maxRetries: 1 }).consents.get("c-1")).resolves.toEqual(JSON.parse(grant));
    expect(server.count).toBe(2);
  });

  it("a POST is never repeated after a reset", async () => {
    server = await startHttp((req) => req.socket.destroy());
    const error = await rejectionOf(clientFor(server.url, { maxRetries: 3 }).subscriptions.create(input));
    expect(error).toBeInstanceOf(FdxConnectionError);
    expect(server.count).toBe(1);
  });

  it("an error body cut off midway still gives the status's error", async () => {
    server = await startHttp((_, res) => {
      res.writeHead(404, { "content-type": "application/json", "content-length": "1000" });
      res.write('{"code":"NotFound","mess');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const error = await rejectionOf(clientFor(server.url).consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxNotFoundError);
    // What arrived of the body is dropped, not half-read into the error.
    expect(error).toMatchObject({ status: 404, body: "" });
  });

  it("a refused connection is an FdxConnectionError with the platform error as cause", async () => {
    const port = await refusedPort();
    const error = (await rejectionOf(clientFor(`http://127.0.0.1:${port}`).consents.get("c-1"))) as FdxConnectionError;
    expect(error).toBeInstanceOf(FdxConnectionError);
    expect(error.cause).toBeDefined();
    expect(error.message).toContain("ECONNREFUSED");
  });
});

describe("timeouts", () => {
  it("a server that never answers gives FdxTimeoutError, an FdxConnectionError, for each attempt", async () => {
    server = await startHttp(() => {});
    const error = await rejectionOf(clientFor(server.url, { timeoutMs: 50, maxRetries: 1 }).consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxTimeoutError);
    expect(error).toBeInstanceOf(FdxConnectionError);
    expect(server.count).toBe(2);
  });

  // Why every attempt hands fetch a signal (which costs Node 20's fetch some
  // 15–30 µs a call): a timeout that only stopped waiting would leave the
  // connection open until undici's own 300 s header timeout, and a script
  // whose call timed out could not exit until then.
  it("a timed-out attempt closes its connection: the server sees it go at once", async () => {
    let closed = 0;
    server = await startHttp((req) => req.socket.once("close", () => closed++));
    const error = await rejectionOf(clientFor(server.url, { timeoutMs: 100 }).consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxTimeoutError);
    // Nothing else closes it within the poll: node:http gives a request 300 s.
    await expect.poll(() => closed, { timeout: 5_000 }).toBe(1);
  });

  it("a fetch given to the client sees its request's signal abort with the reason: the attempt's timeout, or the caller's abort", async () => {
    const signals: AbortSignal[] = [];
    // Answers nothing, ever: only the signal can end what it started.
    const fetch = (request: Request) => {
      signals.push(request.signal);
      return new Promise<Response>(() => {});
    };
    const timedOut = await rejectionOf(createClient({ baseUrl: "http://127.0.0.1:9", token: "tok", maxRetries: 0, timeoutMs: 50, fetch }).consents.get("c-1"));
    expect(timedOut).toBeInstanceOf(FdxTimeoutError);
    await expect.poll(() => signals[0]?.aborted, { timeout: 5_000 }).toBe(true);
    expect([(signals[0]!.reason as DOMException).name, (signals[0]!.reason as DOMException).message]).toEqual(["TimeoutError", "The attempt timed out"]);

    const caller = new AbortController();
    const pending = rejectionOf(
      createClient({ baseUrl: "http://127.0.0.1:9", token: "tok", maxRetries: 0, fetch }).consents.get("c-1", { signal: caller.signal }),
    );
    await expect.poll(() => signals.length, { timeout: 5_000 }).toBe(2);
    expect(signals[1]!.aborted).toBe(false);
    caller.abort("the user left");
    expect(await pending).toBeInstanceOf(FdxAbortError);
    await expect.poll(() => signals[1]!.aborted, { timeout: 5_000 }).toBe(true);
    expect(signals[1]!.reason).toBe("the user left");
  });

  it("a POST that timed out is not repeated", async () => {
    server = await startHttp(() => {});
    const error = await rejectionOf(clientFor(server.url, { timeoutMs: 50, maxRetries: 2 }).subscriptions.create(input));
    expect(error).toBeInstanceOf(FdxTimeoutError);
    expect(server.count).toBe(1);
  });

  it("slow headers time out; the per-call timeoutMs overrides the client's", async () => {
    server = await startHttp((_, res) => {
      setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(grant), 300);
    });
    const client = clientFor(server.url, { timeoutMs: 50 });
    await expect(client.consents.get("c-1")).rejects.toBeInstanceOf(FdxTimeoutError);
    await expect(client.consents.get("c-1", { timeoutMs: 10_000 })).resolves.toEqual(JSON.parse(grant));
  });

  it("a JSON call's timeout covers its body: one that trickles times out, and is retried like any timeout", async () => {
    let requests = 0;
    server = await startHttp((_, res) => {
      requests++;
      res.writeHead(200, { "content-type": "application/json" });
      res.write(grant.slice(0, 5));
      // The rest never comes within the timeout: headers at once, then a trickle.
      const trickle = setInterval(() => res.write(" "), 100);
      res.on("close", () => clearInterval(trickle));
    });
    const error = await rejectionOf(clientFor(server.url, { timeoutMs: 300, maxRetries: 1 }).consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxTimeoutError);
    expect((error as FdxTimeoutError).message).toMatch(/timed out after 300 ms while reading the response$/);
    expect(requests).toBe(2);
  });

  it("the timeout does not cover the token function", async () => {
    server = await startHttp((_, res) => res.writeHead(200, { "content-type": "application/json" }).end(grant));
    const slowToken = () => new Promise<string>((resolve) => setTimeout(() => resolve("late-token"), 1_500));
    await expect(clientFor(server.url, { timeoutMs: 500, token: slowToken }).consents.get("c-1")).resolves.toBeDefined();
  });
});

describe("Retry-After", () => {
  const maintenance = (retryAfter: string) => (_: unknown, res: import("node:http").ServerResponse, n: number) => {
    if (n === 1) {
      res
        .writeHead(503, { "content-type": "application/json", "retry-after": retryAfter })
        .end(JSON.stringify({ code: "503", message: "Scheduled Maintenance" }));
    } else {
      res.writeHead(200, { "content-type": "application/json" }).end(grant);
    }
  };

  it.each([
    ["0 seconds", () => "0"],
    ["1 second", () => "1"],
    ["an HTTP date", () => new Date(Date.now() + 1000).toUTCString()],
  ])("waits for %s and retries", async (_, value) => {
    server = await startHttp(maintenance(value()));
    await expect(clientFor(server.url, { maxRetries: 1 }).consents.get("c-1")).resolves.toEqual(JSON.parse(grant));
    expect(server.count).toBe(2);
  });

  it("a POST is retried on 503 (it was not processed)", async () => {
    server = await startHttp((_, res, n) => {
      if (n === 1) return maintenance("0")(_, res, n);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...input, subscriptionId: "s-1" }));
    });
    await expect(clientFor(server.url, { maxRetries: 1 }).subscriptions.create(input)).resolves.toMatchObject({
      subscriptionId: "s-1",
    });
    expect(server.count).toBe(2);
  });

  it("above 60 s, the error is surfaced at once instead of waiting", async () => {
    server = await startHttp(maintenance("61"));
    const error = await rejectionOf(clientFor(server.url, { maxRetries: 2 }).consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxMaintenanceError);
    expect(server.count).toBe(1);
  });
});

describe("abort", () => {
  it("an abort during the backoff wait rejects at once with FdxAbortError and sends nothing more", async () => {
    const controller = new AbortController();
    server = await startHttp((_, res) => {
      res.writeHead(503, { "content-type": "application/json", "retry-after": "30" }).end(JSON.stringify({ code: "503", message: "Scheduled Maintenance" }));
      setTimeout(() => controller.abort(), 50);
    });
    // Without a prompt abort this would wait 30 s and the test would time out.
    const error = await rejectionOf(clientFor(server.url, { maxRetries: 2 }).consents.get("c-1", { signal: controller.signal }));
    expect(error).toBeInstanceOf(FdxAbortError);
    expect(error).toBeInstanceOf(FdxError);
    expect((error as Error).name).toBe("AbortError");
    expect(server.count).toBe(1);
  });

  it("an abort while waiting for the response rejects with FdxAbortError, not a timeout", async () => {
    const controller = new AbortController();
    server = await startHttp(() => setTimeout(() => controller.abort(), 20));
    const error = await rejectionOf(clientFor(server.url, { maxRetries: 2 }).consents.get("c-1", { signal: controller.signal }));
    expect(error).toBeInstanceOf(FdxAbortError);
    expect(server.count).toBe(1);
  });

  it("an abort while reading a 2xx body ends the call as an abort, even with no retry left", async () => {
    const controller = new AbortController();
    server = await startHttp((_, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      res.write('{"id":"c-1"');
      setTimeout(() => controller.abort(new Error("the user left")), 20);
    });
    const error = await rejectionOf(clientFor(server.url).consents.get("c-1", { signal: controller.signal }));
    expect(error).toBeInstanceOf(FdxAbortError);
    expect(((error as FdxAbortError).cause as Error).message).toBe("the user left");
  });

  it("an abort while reading an error body ends the call as an abort, not as the error", async () => {
    const controller = new AbortController();
    server = await startHttp((_, res) => {
      res.writeHead(404, { "content-type": "application/json", "content-length": "1000" });
      res.write('{"code":"NotFound"');
      setTimeout(() => controller.abort(new Error("the user left")), 20);
    });
    const error = await rejectionOf(clientFor(server.url).consents.get("c-1", { signal: controller.signal }));
    expect(error).toBeInstanceOf(FdxAbortError);
    expect(((error as FdxAbortError).cause as Error).message).toBe("the user left");
  });

  it("an already aborted signal sends nothing", async () => {
    server = await startHttp((_, res) => res.end(grant));
    const error = await rejectionOf(clientFor(server.url).consents.get("c-1", { signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(FdxAbortError);
    expect(server.count).toBe(0);
  });
});

describe("token function", () => {
  it("is called before every attempt, and each attempt carries the fresh token", async () => {
    const seen: string[] = [];
    server = await startHttp((req, res, n) => {
      seen.push(req.headers.authorization ?? "");
      if (n < 3) {
        res.writeHead(503, { "retry-after": "0", "content-type": "application/json" }).end('{"code":"503"}');
      } else {
        res.writeHead(200, { "content-type": "application/json" }).end(grant);
      }
    });
    let calls = 0;
    const client = clientFor(server.url, { maxRetries: 2, token: () => `t${++calls}` });
    await client.consents.get("c-1");
    expect(calls).toBe(3);
    expect(seen).toEqual(["Bearer t1", "Bearer t2", "Bearer t3"]);
  });
});
