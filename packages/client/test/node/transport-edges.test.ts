// Node's own transport (src/node/transport.ts) at its edges: the URL forms its
// origin cache must leave to the URL parser, what it sends, the members of the
// answer it makes, the body reader's states and the codings it undoes. The
// decoding tests hold for both transports; the rest are about node:http.
import { once } from "node:events";
import { Agent, createServer, type IncomingMessage } from "node:http";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { brotliCompressSync, constants, createBrotliCompress, createDeflate, createGzip, deflateSync, gzipSync, type Gzip } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, FdxConnectionError } from "../../src/index.js";
import { sendNode } from "../../src/node/transport.js";
import { refusedPort, rejectionOf, startHttp, TOKEN, type RealServer } from "../support/http.js";
import { transport } from "../support/transport.js";

const grant = { id: "c-1", status: "ACTIVE" };
const json = Buffer.from(JSON.stringify(grant));
const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function http(handler: Parameters<typeof startHttp>[0]): Promise<RealServer> {
  const server = await startHttp(handler);
  closers.push(() => server.close());
  return server;
}

/** A TCP server on 127.0.0.1 that hands each connection's socket over once its request has come in: for raw answers. */
async function raw(onRequest: (socket: Socket) => void): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.once("data", () => onRequest(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A raw answer's head: `status` line, then the header lines given. */
const head = (lines: string[], status = "200 OK") => `HTTP/1.1 ${status}\r\n${lines.map((line) => `${line}\r\n`).join("")}\r\n`;

const client = (baseUrl: string) => createClient({ baseUrl, token: TOKEN, maxRetries: 0 });
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (chunk: ReadableStreamReadResult<Uint8Array>) => Buffer.from(chunk.value!).toString();

/** Settles a read, or says it never did: a read that hangs fails its test in seconds, not at the test timeout. */
const settled = <T>(read: Promise<T>) =>
  Promise.race([
    read.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    delay(5_000).then(() => ({ hung: true })),
  ]);

/** The compressed bytes of `data` flushed but never finished: no end marker, no trailer (a body cut short after all its content). */
async function unfinished(
  stream: Gzip | ReturnType<typeof createDeflate> | ReturnType<typeof createBrotliCompress>,
  data: Buffer,
  flush: number,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  stream.write(data);
  await new Promise<void>((resolve) => stream.flush(flush, () => resolve()));
  stream.destroy();
  return Buffer.concat(chunks);
}

describe("answers compressed as fetch decodes them", () => {
  it("a 16-character header other than Content-Encoding (Content-Language) names no coding", async () => {
    const server = await http((_, res) =>
      res
        .writeHead(200, { "content-language": "en", "content-type": "application/json", "content-encoding": "gzip", "content-location": "/x" })
        .end(gzipSync(json)),
    );
    await expect(client(server.url).consents.get("c-1")).resolves.toEqual(grant);
  });

  it("a coding it does not know, beside one it knows, leaves the whole body as it came", async () => {
    const packed = gzipSync(Buffer.from("%PDF-1.7 statement"));
    const server = await http((_, res) => res.writeHead(200, { "content-type": "application/pdf", "content-encoding": "gzip, snappy" }).end(packed));
    const doc = await client(server.url).statements.download(`${server.url}/doc.pdf`);
    expect(Buffer.from(await doc.arrayBuffer()).equals(packed)).toBe(true);
  });

  it.each([
    ["gzip", () => unfinished(createGzip(), json, constants.Z_SYNC_FLUSH)],
    ["deflate", () => unfinished(createDeflate(), json, constants.Z_SYNC_FLUSH)],
    ["br", () => unfinished(createBrotliCompress(), json, constants.BROTLI_OPERATION_FLUSH)],
  ])("a JSON answer in %s cut after its content (no end, no trailer) is read, not failed", async (coding, make) => {
    const body = await make();
    const server = await http((_, res) => res.writeHead(200, { "content-type": "application/json", "content-encoding": coding }).end(body));
    await expect(client(server.url).consents.get("c-1")).resolves.toEqual(grant);
  });
});

describe.runIf(transport === "node")("node:http: codings", () => {
  it.each([
    // "identity" and empty tokens name no coding: the others are still undone.
    ["gzip, identity", gzipSync(json)],
    ["identity, deflate", deflateSync(json)],
    ["gzip,", gzipSync(json)],
    [" , br", brotliCompressSync(json)],
  ])("a JSON answer in %j", async (coding, body) => {
    const server = await http((_, res) => res.writeHead(200, { "content-type": "application/json", "content-encoding": coding }).end(body));
    await expect(client(server.url).consents.get("c-1")).resolves.toEqual(grant);
  });

  it("a 205 answer's body is not decoded (no body is expected of one)", async () => {
    const url = await raw((socket) => socket.end(`${head(["content-encoding: gzip", "content-length: 5", "connection: close"], "205 Reset Content")}plain`));
    const reply = await sendNode(`${url}/`, {}, undefined);
    const reader = reply.body!.getReader();
    expect(text(await reader.read())).toBe("plain");
    await expect(reader.read()).resolves.toEqual({ done: true, value: undefined });
  });
});

describe.runIf(transport === "node")("node:http: what is sent", () => {
  it("a string body with its length in bytes, not chunked", async () => {
    const got: { length?: string; chunked?: string; body: string }[] = [];
    const server = await http((req, res) => {
      let body = "";
      req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      req.on("end", () => {
        got.push({ length: req.headers["content-length"], chunked: req.headers["transfer-encoding"], body });
        res.end();
      });
    });
    const body = JSON.stringify({ memo: "café ✓" });
    await (await sendNode(`${server.url}/`, { method: "POST", body }, undefined)).body!.cancel();
    // No body at all, as fetch takes `body: null`.
    await (await sendNode(`${server.url}/`, { method: "POST", body: null }, undefined)).body!.cancel();
    expect(got).toEqual([
      { length: String(Buffer.byteLength(body)), chunked: undefined, body },
      { length: "0", chunked: undefined, body: "" },
    ]);
    expect(Buffer.byteLength(body)).toBeGreaterThan(body.length);
  });

  it("without a body: a DELETE or GET sends no length and is not chunked; a given Content-Length yields to the body's", async () => {
    const got: { method?: string; length?: string; chunked?: string; body: string }[] = [];
    const server = await http((req, res) => {
      let body = "";
      req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      req.on("end", () => {
        got.push({ method: req.method, length: req.headers["content-length"], chunked: req.headers["transfer-encoding"], body });
        res.end();
      });
    });
    await (await sendNode(`${server.url}/`, { method: "DELETE" }, undefined)).body!.cancel();
    await (await sendNode(`${server.url}/`, {}, undefined)).body!.cancel();
    await (await sendNode(`${server.url}/`, { method: "PATCH", body: "{}", headers: { "content-length": "999" } }, undefined)).body!.cancel();
    expect(got).toEqual([
      { method: "DELETE", length: undefined, chunked: undefined, body: "" },
      { method: "GET", length: undefined, chunked: undefined, body: "" },
      { method: "PATCH", length: "2", chunked: undefined, body: "{}" },
    ]);
  });

  it("a body's own length goes beside every other header the caller gave (none dropped for a POST or PATCH)", async () => {
    const got: Record<string, string | string[] | undefined>[] = [];
    const server = await http((req, res) => {
      got.push(req.headers);
      req.resume().on("end", () => res.end());
    });
    const headers = { authorization: "Bearer t", "content-type": "application/json", "x-fapi-interaction-id": "i-1", "content-length": "999" };
    await (await sendNode(`${server.url}/`, { method: "POST", body: "{}", headers }, undefined)).body!.cancel();
    await (await sendNode(`${server.url}/`, { method: "PATCH", body: "[1]", headers }, undefined)).body!.cancel();
    expect(got.map((h) => [h.authorization, h["content-type"], h["x-fapi-interaction-id"], h["content-length"]])).toEqual([
      ["Bearer t", "application/json", "i-1", "2"],
      ["Bearer t", "application/json", "i-1", "3"],
    ]);
  });

  it("a malformed answer on a kept-alive connection fails the call, and is not sent again (only a reset is a stale connection)", async () => {
    let requests = 0;
    const url = await raw((socket) => {
      requests++;
      socket.write(`${head(["content-length: 2"])}{}`);
      // The next request on this connection gets an answer no HTTP parser takes.
      socket.once("data", () => {
        requests++;
        socket.write("NOT HTTP AT ALL\r\n\r\n");
      });
    });
    const agent = new Agent({ keepAlive: true });
    closers.push(() => agent.destroy());
    const first = await sendNode(`${url}/a`, {}, { http: agent });
    await first.body!.getReader().read();
    await delay(10);
    const error = await rejectionOf(sendNode(`${url}/b`, {}, { http: agent }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error & { cause: NodeJS.ErrnoException }).cause.code).toMatch(/^HPE_/);
    expect(requests).toBe(2);
  });

  it("Host is the URL's host, sent once, unless the caller names one", async () => {
    const got: string[][] = [];
    const server = await http((req, res) => {
      got.push(req.rawHeaders.filter((_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === "host").map(() => req.headers.host!));
      res.end();
    });
    const port = new URL(server.url).port;
    await (await sendNode(`${server.url}/`, { headers: { accept: "application/json" } }, undefined)).body!.cancel();
    await (await sendNode(`${server.url}/`, { headers: { host: "api.example.test" } }, undefined)).body!.cancel();
    expect(got).toEqual([[`127.0.0.1:${port}`], ["api.example.test"]]);
  });

  it("headers given as pairs or a Headers, in any case, are the caller's (its Accept-Encoding kept)", async () => {
    const got: (string | undefined)[] = [];
    const server = await http((req, res) => {
      got.push(req.headers["accept-encoding"]);
      res.end();
    });
    for (const headers of [
      [["Accept-Encoding", "identity"]] as [string, string][],
      new Headers({ "Accept-Encoding": "identity" }),
      { "accept-encoding": "identity" },
    ]) {
      await (await sendNode(`${server.url}/`, { headers }, undefined)).body!.cancel();
    }
    expect(got).toEqual(["identity", "identity", "identity"]);
  });

  it("sends the path fetch would for URLs whose first slash follows a query, a fragment or a backslash", async () => {
    const got: string[] = [];
    const server = await http((req, res) => {
      got.push(req.url!);
      res.end();
    });
    // The part before the first "/" is no bare origin here: the URL parser moves some of it into the path or drops it.
    const tails = ["?q=a/b", "#f/x", "?/x", "#/x", "\\a/b"];
    for (const tail of tails) await (await sendNode(server.url + tail, {}, undefined)).body!.cancel();
    expect(got).toEqual(["/?q=a/b", "/", "/?/x", "/", "/a/b"]);
    expect(got).toEqual(
      tails.map((tail) => {
        const url = new URL(server.url + tail);
        return url.pathname + url.search;
      }),
    );
  });

  it("refuses a URL with a user name alone, or a password alone", async () => {
    const server = await http((_, res) => res.end());
    const [, rest] = server.url.split("//");
    for (const credentials of ["user@", ":pw@"]) {
      const error = await rejectionOf(sendNode(`http://${credentials}${rest}/a`, {}, undefined));
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe("a URL with credentials cannot be requested");
    }
    expect(server.count).toBe(0);
  });

  it("reaches an IPv6 literal (sent to Node without its brackets), naming it in Host as fetch does", async () => {
    const hosts: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      hosts.push(req.headers.host);
      res.end();
    });
    const listening = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(0, "::1", () => resolve(true));
    });
    if (!listening) return; // no IPv6 loopback on this machine
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    const { port } = server.address() as AddressInfo;
    await (await sendNode(`http://[::1]:${port}/a`, {}, undefined)).body!.cancel();
    await (await sendNode(`http://[::1]:${port}?q=1`, {}, undefined)).body!.cancel();
    expect(hosts).toEqual([`[::1]:${port}`, `[::1]:${port}`]);
  });
});

describe.runIf(transport === "node")("node:http: failures", () => {
  it("no answer: a TypeError 'request failed' whose cause is Node's error, which the client's error names", async () => {
    const port = await refusedPort();
    const error = await rejectionOf(sendNode(`http://127.0.0.1:${port}/`, {}, undefined));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe("request failed");
    expect(((error as Error).cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
    const failed = (await rejectionOf(client(`http://127.0.0.1:${port}`).consents.get("c-1"))) as FdxConnectionError;
    expect(failed).toBeInstanceOf(FdxConnectionError);
    expect(failed.message).toBe(`GET http://127.0.0.1:${port}/consents/v1/c-1 failed: request failed (ECONNREFUSED)`);
  });

  it("`stopped` rejecting before the answer destroys the request: the reason is the cause, the connection is closed", async () => {
    let arrived!: () => void;
    const request = new Promise<void>((resolve) => (arrived = resolve));
    let incoming: IncomingMessage | undefined;
    const server = await http((req) => {
      incoming = req; // never answered
      arrived();
    });
    let stop!: (reason: unknown) => void;
    const stopped = new Promise<never>((_, reject) => (stop = reject));
    const sent = settled(sendNode(`${server.url}/`, {}, undefined, stopped));
    await request;
    const reason = new Error("the attempt timed out");
    stop(reason);
    const { error } = (await sent) as { error?: TypeError };
    expect(error).toBeInstanceOf(TypeError);
    expect(error!.message).toBe("request failed");
    expect(error!.cause).toBe(reason);
    await expect.poll(() => incoming!.socket?.destroyed ?? true, { timeout: 5_000 }).toBe(true);
  });
});

describe.runIf(transport === "node")("node:http: the answer's members", () => {
  it("status, statusText, ok (200–299 only), type and url, as a Response has them", async () => {
    const seen: [number, string, boolean, string, string][] = [];
    for (const status of ["101 Switching Protocols", "200 OK", "299 Custom", "300 Multiple Choices", "418 I'm a teapot"]) {
      const url = await raw((socket) => socket.end(head(["content-length: 0", "connection: close"], status)));
      const reply = await sendNode(`${url}/x`, {}, undefined);
      seen.push([reply.status, reply.statusText, reply.ok, reply.type, reply.url.replace(url, "")]);
      await reply.body!.cancel();
    }
    expect(seen).toEqual([
      [101, "Switching Protocols", false, "basic", "/x"],
      [200, "OK", true, "basic", "/x"],
      [299, "Custom", true, "basic", "/x"],
      [300, "Multiple Choices", false, "basic", "/x"],
      [418, "I'm a teapot", false, "basic", "/x"],
    ]);
  });

  it("the reason phrase is the client's error message when the body says nothing", async () => {
    const url = await raw((socket) => socket.end(head(["content-length: 0", "connection: close"], "418 I'm a teapot")));
    const error = (await rejectionOf(client(url).consents.get("c-1"))) as Error & { status: number };
    expect(error.status).toBe(418);
    expect(error.message).toMatch(/I'm a teapot/);
  });

  it("headers: every pair, repeated names joined, nothing else; the same Headers on every read", async () => {
    const url = await raw((socket) => socket.end(head(["X-One: 1", "x-two: 2", "X-ONE: 3", "Content-Length: 0", "Connection: close"])));
    const reply = await sendNode(`${url}/`, {}, undefined);
    expect([...reply.headers]).toEqual([
      ["connection", "close"],
      ["content-length", "0"],
      ["x-one", "1, 3"],
      ["x-two", "2"],
    ]);
    expect(reply.headers).toBe(reply.headers);
    await reply.body!.cancel();
  });
});

describe.runIf(transport === "node")("node:http: the body's reader", () => {
  it("a socket gone while a read waits: that read fails with Node's error ('aborted', ECONNRESET)", async () => {
    let socket!: Socket;
    let requested!: () => void;
    const request = new Promise<void>((resolve) => (requested = resolve));
    const url = await raw((s) => {
      socket = s;
      s.write(`${head(["content-length: 100"])}partial`);
      requested();
    });
    const reply = await sendNode(`${url}/`, {}, undefined);
    await request;
    const reader = reply.body!.getReader();
    expect(text(await reader.read())).toBe("partial");
    const pending = reader.read();
    socket.destroy();
    expect(await settled(pending)).toEqual({ error: expect.objectContaining({ message: "aborted", code: "ECONNRESET" }) });
  });

  it("a socket gone before the first read: the buffered bytes, then Node's error, at once", async () => {
    const sockets: Socket[] = [];
    class Capture extends Agent {
      override createConnection(...args: Parameters<Agent["createConnection"]>) {
        const socket = super.createConnection(...args) as Socket;
        sockets.push(socket);
        return socket;
      }
    }
    const agent = new Capture();
    closers.push(() => agent.destroy());
    const url = await raw((s) => s.end(`${head(["content-length: 100"])}partial`));
    const reply = await sendNode(`${url}/`, {}, { http: agent });
    // Node's own 'close' handler (which destroys the answer) was added first, so it has run by the time this one does.
    const [socket] = sockets;
    if (!socket!.closed) await once(socket!, "close");
    await new Promise((resolve) => setImmediate(resolve));
    const reader = reply.body!.getReader();
    const got: string[] = [];
    for (;;) {
      const result = await settled(reader.read());
      if (!("value" in result) || result.value.done) {
        expect(result).toEqual({ error: expect.objectContaining({ message: "aborted", code: "ECONNRESET" }) });
        break;
      }
      got.push(text(result.value));
    }
    expect(got.join("")).toBe("partial");
  });

  it("a body that makes a read wait many times leaves no listener behind (no MaxListenersExceededWarning)", async () => {
    let socket!: Socket;
    let requested!: () => void;
    const request = new Promise<void>((resolve) => (requested = resolve));
    const url = await raw((s) => {
      socket = s;
      s.write(head(["transfer-encoding: chunked"]));
      requested();
    });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const reply = await sendNode(`${url}/`, {}, undefined);
      await request;
      const reader = reply.body!.getReader();
      for (let i = 10; i < 30; i++) {
        // Asked for before the chunk is sent: every read waits.
        const pending = reader.read();
        socket.write(`2\r\n${i}\r\n`);
        expect(text(await pending)).toBe(String(i));
      }
      const end = reader.read();
      socket.write("0\r\n\r\n");
      await expect(end).resolves.toEqual({ done: true, value: undefined });
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([]);
  });

  it.each([
    ["as it came", [] as string[], (body: Buffer) => body],
    ["in gzip", ["content-encoding: gzip"], gzipSync],
  ])("a body read slowly (a pause before each read) ends as done, %s", async (_, lines, encode) => {
    const body = Buffer.from("a small document");
    const packed = encode(body);
    // Head and body in one write: all of it is in before the first read.
    const url = await raw((socket) => socket.write(Buffer.concat([Buffer.from(head([...lines, `content-length: ${packed.length}`])), packed])));
    const reply = await sendNode(`${url}/`, {}, undefined);
    const reader = reply.body!.getReader();
    const got: string[] = [];
    for (;;) {
      await delay(30);
      const result = await settled(reader.read());
      expect(result).toHaveProperty("value");
      const chunk = (result as { value: ReadableStreamReadResult<Uint8Array> }).value;
      if (chunk.done) break;
      got.push(text(chunk));
    }
    expect(got.join("")).toBe(body.toString());
  });

  it("a body cancelled, then read: done, as a web stream's reader is", async () => {
    const url = await raw((socket) => socket.write(`${head(["content-length: 100"])}partial`));
    const reply = await sendNode(`${url}/`, {}, undefined);
    const reader = reply.body!.getReader();
    await reader.cancel();
    await expect(reader.read()).resolves.toEqual({ done: true, value: undefined });
  });
});
