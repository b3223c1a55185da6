// Node's own transport (src/node/transport.ts). The decoding tests hold for
// both transports (this file runs in both projects, like every other); the
// rest are about node:http itself: agents, keep-alive, what it refuses.
import { Agent } from "node:http";
import { Agent as HttpsAgent, createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Socket } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, FdxConnectionError } from "../../src/index.js";
import { startAttempt } from "../../src/internal/abort.js";
import { sendNode, sendNodeTransport } from "../../src/node/transport.js";
import { rejectionOf, startHttp, TOKEN, type RealServer } from "../support/http.js";
import { makeCertificates } from "../support/certificates.js";
import { transport } from "../support/transport.js";

const grant = { id: "c-1", status: "ACTIVE" };
let server: RealServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const subscription = { category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://hooks.test/fdx" } as const;
const client = (options: { agent?: { http?: object } } = {}) => createClient({ baseUrl: server!.url, token: TOKEN, maxRetries: 0, ...options });

describe("answers compressed as fetch decodes them", () => {
  const json = Buffer.from(JSON.stringify(grant));
  it.each([
    ["gzip", gzipSync(json)],
    ["x-gzip", gzipSync(json)],
    ["deflate", deflateSync(json)],
    ["br", brotliCompressSync(json)],
    // Applied in the order named, undone last to first.
    ["deflate, gzip", gzipSync(deflateSync(json))],
    ["identity", json],
    // A coding neither knows: the body is handed over as it came.
    ["snappy", json],
  ])("a JSON answer in %s", async (coding, body) => {
    server = await startHttp((_, res) => res.writeHead(200, { "content-type": "application/json", "content-encoding": coding }).end(body));
    await expect(client().consents.get("c-1")).resolves.toEqual(grant);
  });

  it("a JSON answer whose codings come in two header lines, or in capitals", async () => {
    server = await startHttp((req, res) => {
      if (req.url!.endsWith("/two")) {
        // Two lines, applied in order (deflate, then gzip): undone gzip first.
        res.setHeader("content-encoding", ["deflate", "gzip"]);
        return res.writeHead(200, { "content-type": "application/json" }).end(gzipSync(deflateSync(json)));
      }
      res.writeHead(200, { "Content-Type": "application/json", "CONTENT-ENCODING": "GZIP" }).end(gzipSync(json));
    });
    await expect(client().consents.get("two")).resolves.toEqual(grant);
    await expect(client().consents.get("caps")).resolves.toEqual(grant);
  });

  it("a document in gzip, streamed decoded, with no contentLength (the header counts the compressed bytes)", async () => {
    const pdf = Buffer.alloc(300_000, "%PDF-");
    const packed = gzipSync(pdf);
    server = await startHttp((_, res) =>
      res.writeHead(200, { "content-type": "application/pdf", "content-encoding": "gzip", "content-length": String(packed.length) }).end(packed),
    );
    const doc = await client().statements.download(`${server.url}/doc.pdf`);
    expect(doc.contentLength).toBeUndefined();
    expect(Buffer.from(await doc.arrayBuffer()).equals(pdf)).toBe(true);
  });

  it("asks for compressed answers, as fetch does", async () => {
    let asked: string | undefined;
    server = await startHttp((req, res) => {
      asked = req.headers["accept-encoding"];
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(grant));
    });
    await client().consents.get("c-1");
    expect(asked).toMatch(/gzip/);
  });
});

describe.runIf(transport === "node")("node:http", () => {
  it("leaves the attempt it sends under as it was given (its race included)", async () => {
    server = await startHttp((_, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(grant)));
    const attempt = startAttempt(undefined, 60_000);
    const { race } = attempt;
    const settings = { token: TOKEN, fetch: undefined, timeoutMs: 60_000, maxRetries: 0, maxResponseBytes: 1024, interactionIds: false, hooks: undefined };
    try {
      const reply = await sendNodeTransport(settings, `${server.url}/consents/v1/c-1`, { method: "GET", headers: {} }, attempt);
      expect(reply.status).toBe(200);
      await reply.body?.cancel();
      expect(attempt.race).toBe(race);
      expect(sendNodeTransport.endsWithAttempt).toBe(true);
    } finally {
      attempt.end();
    }
  });

  it("keeps the connection alive across calls", async () => {
    const sockets = new Set<Socket>();
    server = await startHttp((req, res) => {
      sockets.add(req.socket);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(grant));
    });
    const c = client();
    for (let i = 0; i < 3; i++) await c.consents.get("c-1");
    expect(sockets.size).toBe(1);
  });

  it("a kept-alive connection reset under a request is replaced by a fresh one, once, even for a POST", async () => {
    const sockets = new Set<Socket>();
    server = await startHttp((req, res, n) => {
      sockets.add(req.socket);
      // The second request arrives on the first one's connection: reset, as a server whose keep-alive timeout ran out.
      if (n === 2) return void req.socket.resetAndDestroy();
      res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ subscriptionId: `s-${n}`, type: "CONSENT_REVOKED" }));
    });
    const c = client();
    await c.consents.get("c-1");
    const created = await c.subscriptions.create(subscription);
    expect(created).toMatchObject({ subscriptionId: "s-3" });
    expect(sockets.size).toBe(2);
  });

  it("a connection reset on a fresh connection fails a POST as a connection error, with no second try", async () => {
    server = await startHttp((req) => void req.socket.resetAndDestroy());
    const error = await rejectionOf(client().subscriptions.create(subscription));
    expect(error).toBeInstanceOf(FdxConnectionError);
    expect((error as Error).message).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/notifications\/.+ failed: request failed \(ECONNRESET\)$/);
    expect(server.count).toBe(1);
  });

  it("sends through the agent given as `agent.http`", async () => {
    let created = 0;
    class Counting extends Agent {
      override createConnection(...args: Parameters<Agent["createConnection"]>) {
        created++;
        return super.createConnection(...args);
      }
    }
    const agent = new Counting({ keepAlive: true });
    server = await startHttp((_, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(grant)));
    try {
      await expect(client({ agent: { http: agent } }).consents.get("c-1")).resolves.toEqual(grant);
      expect(created).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it("an agent that is not one fails the call as a connection error", async () => {
    server = await startHttp((_, res) => res.end("{}"));
    const error = await rejectionOf(client({ agent: { http: { not: "an agent" } } }).consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxConnectionError);
    expect(server.count).toBe(0);
  });

  it("refuses what fetch refuses: other schemes, credentials in the URL, an aborted signal", async () => {
    await expect(sendNode("file:///etc/passwd", {}, undefined)).rejects.toThrow(/file: scheme is not supported/);
    await expect(sendNode("http://user:pw@127.0.0.1:9/", {}, undefined)).rejects.toThrow(/credentials/);
    const reason = new Error("stop");
    await expect(sendNode("http://127.0.0.1:9/", { signal: AbortSignal.abort(reason) }, undefined)).rejects.toBe(reason);
  });

  it("sends the path and query fetch would send, whatever the URL holds", async () => {
    const got: string[] = [];
    server = await startHttp((req, res) => {
      got.push(req.url!);
      res.end();
    });
    // The first two are sent as they are; the rest the URL parser rewrites (dot segments, %2e, quotes,
    // spaces, a fragment, non-ASCII, a backslash, no path at all), and so does this transport.
    const tails = ["/a/b?x=1&y=2", "/%2Fx/a.pdf", "/a/../b", "/a/./b/.", "/%2e%2E/x", "/x?q='1'", "/a b", "/a#frag", "/é?ü", "\\a\\b", ""];
    for (const tail of tails) await (await sendNode(server.url + tail, {}, undefined)).body!.cancel();
    expect(got).toEqual(
      tails.map((tail) => {
        const url = new URL(server!.url + tail);
        return url.pathname + url.search;
      }),
    );
    expect(got.slice(0, 4)).toEqual(["/a/b?x=1&y=2", "/%2Fx/a.pdf", "/b", "/a/b/"]);
    // An origin seen before, with credentials added, is still refused.
    await expect(sendNode(`${server.url.replace("//", "//user:pw@")}/a`, {}, undefined)).rejects.toThrow(/credentials/);
  });

  it("speaks https: through its own keep-alive agent, or through the one given as `agent.https` (a private CA here)", async () => {
    const certs = makeCertificates();
    const tls = createHttpsServer({ key: certs.server.key, cert: certs.server.cert }, (_, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(grant)),
    );
    await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
    const baseUrl = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    const agent = new HttpsAgent({ keepAlive: true, ca: certs.ca.cert });
    try {
      await expect(createClient({ baseUrl, token: TOKEN, maxRetries: 0, agent: { https: agent } }).consents.get("c-1")).resolves.toEqual(grant);
      // The process's own agent trusts only the usual CAs: the private one is refused, as fetch refuses it.
      const refused = (await rejectionOf(createClient({ baseUrl, token: TOKEN, maxRetries: 0 }).consents.get("c-1"))) as FdxConnectionError;
      expect(refused).toBeInstanceOf(FdxConnectionError);
      expect(refused.message).toMatch(/^GET https:\/\/127\.0\.0\.1:\d+\/consents\/v1\/c-1 failed: /);
    } finally {
      agent.destroy();
      tls.closeAllConnections();
      await new Promise((resolve) => tls.close(resolve));
    }
  });

  it("takes headers as fetch does: a record, a Headers, or pairs", async () => {
    const got: (string | undefined)[] = [];
    server = await startHttp((req, res) => {
      got.push(req.headers["x-one"] as string | undefined);
      res.end();
    });
    for (const headers of [{ "x-one": "1" }, new Headers({ "X-One": "1" }), [["X-One", "1"]] as [string, string][], undefined]) {
      const reply = await sendNode(server.url, { headers }, undefined);
      await reply.body?.cancel();
    }
    expect(got).toEqual(["1", "1", "1", undefined]);
  });

  it("a read pending when the body is cancelled ends as done, as a web stream's does", async () => {
    server = await startHttp((_, res) => res.writeHead(200).write("partial"));
    const reply = await sendNode(server.url, {}, undefined);
    const reader = reply.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    const pending = reader.read();
    await reader.cancel();
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
    await expect(reader.read()).resolves.toEqual({ done: true, value: undefined });
  });
});

// What `agent` must be, the node entry checks (entry.test.ts).
