// Limits of a shared sandbox, against the real server over raw TCP: a body is
// never read before the token is checked, nor past 64 KiB; any well-formed
// HTTP request gets a proper answer.
import net from "node:net";
import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../src/body.js";
import { parseAnswer, rawHttp, useMockServer, validSubscription, type RawAnswer } from "./helpers.js";

const ctx = useMockServer();
const MiB = 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Sends `head`, then body bytes as fast as the server takes them, up to
 * `declared`, until the server answers and closes. Returns the answer and how
 * many body bytes the connection accepted: a server that reads the body takes
 * all of them, one that does not stops taking them once the kernel buffers
 * between the two (a few MiB on loopback) are full.
 */
async function upload(head: string, declared: number, chunk: (bytes: Buffer) => Buffer = (b) => b) {
  const socket = net.connect(ctx.mock.port, "127.0.0.1");
  let data = Buffer.alloc(0);
  let answer: RawAnswer | undefined;
  let answeredAfter: number | undefined;
  let accepted = 0;
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  let isClosed = false;
  void closed.then(() => (isClosed = true));
  socket.on("error", () => {}); // EPIPE / ECONNRESET once the server has closed: expected
  socket.on("data", (received) => {
    data = Buffer.concat([data, received]);
    answer ??= parseAnswer(data);
    if (answer && answeredAfter === undefined) answeredAfter = accepted;
  });
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.write(head);
  const piece = Buffer.alloc(MiB, 0x20);
  while (!isClosed && accepted < declared) {
    const more = socket.write(chunk(piece));
    accepted += piece.byteLength;
    if (!more) await Promise.race([new Promise((resolve) => socket.once("drain", resolve)), closed]);
  }
  socket.end();
  await closed;
  return { answer, accepted, answeredAfter, declared };
}

const auth = () => `Authorization: Bearer ${ctx.mock.token}\r\n`;

describe("the bearer token is checked before any body is read", () => {
  it("answers 401 to a 256 MiB body without a token, and closes instead of reading it", async () => {
    const declared = 256 * MiB;
    const result = await upload(
      `POST /notifications/v1/subscriptions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
      declared,
    );
    expect(result.answer?.status).toBe(401);
    expect(JSON.parse(result.answer?.body ?? "")).toMatchObject({ code: "1205", message: "Unauthorized" });
    expect(result.answer?.headers.connection).toBe("close");
    // The connection took at most what sockets buffer, nowhere near the body.
    expect(result.accepted).toBeLessThan(32 * MiB);
  });

  it("answers 401 to a chunked body without a token the same way", async () => {
    const declared = 256 * MiB;
    const result = await upload(
      `POST /notifications/v1/test HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      declared,
      (bytes) => Buffer.concat([Buffer.from(`${bytes.byteLength.toString(16)}\r\n`), bytes, Buffer.from("\r\n")]),
    );
    expect(result.answer?.status).toBe(401);
    expect(result.accepted).toBeLessThan(32 * MiB);
  });
});

describe("413 past 64 KiB", () => {
  it("answers a declared Content-Length over 64 KiB with 413 without reading the body", async () => {
    const declared = 256 * MiB;
    const result = await upload(
      `POST /notifications/v1/subscriptions HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
      declared,
    );
    expect(result.answer?.status).toBe(413);
    expect(JSON.parse(result.answer?.body ?? "")).toEqual({
      code: "413",
      message: "Payload Too Large",
      debugMessage: `The request body exceeds ${MAX_BODY_BYTES} bytes`,
    });
    expect(result.answer?.headers.connection).toBe("close");
    expect(result.accepted).toBeLessThan(32 * MiB);
  });

  it("stops reading a chunked body at the first byte past 64 KiB and answers 413", async () => {
    const declared = 256 * MiB;
    const result = await upload(
      `PATCH /notifications/v1/subscriptions/x HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      declared,
      (bytes) => Buffer.concat([Buffer.from(`${bytes.byteLength.toString(16)}\r\n`), bytes, Buffer.from("\r\n")]),
    );
    expect(result.answer?.status).toBe(413);
    expect(result.accepted).toBeLessThan(32 * MiB);
  });

  it("takes a body of exactly 64 KiB and refuses one byte more", async () => {
    const json = (size: number) => {
      const base = JSON.stringify({ ...validSubscription, pad: "" });
      return JSON.stringify({ ...validSubscription, pad: "x".repeat(size - base.length) });
    };
    const post = (body: string) => ctx.api("/notifications/v1/subscriptions", { method: "POST", body });
    const exact = await post(json(MAX_BODY_BYTES));
    expect(exact.status).toBe(200);
    const over = await post(json(MAX_BODY_BYTES + 1));
    expect(over.status).toBe(413);
  });

  it("keeps the connection open after a body it read in full", async () => {
    const body = JSON.stringify(validSubscription);
    const request = (extra = "") =>
      `POST /notifications/v1/subscriptions HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n${extra}\r\n${body}`;
    const socket = net.connect(ctx.mock.port, "127.0.0.1");
    let data = Buffer.alloc(0);
    const answers: RawAnswer[] = [];
    await new Promise<void>((resolve, reject) => {
      socket.on("error", reject);
      socket.on("data", (chunk) => {
        data = Buffer.concat([data, chunk]);
        const answer = parseAnswer(data);
        if (!answer) return;
        answers.push(answer);
        data = Buffer.alloc(0);
        if (answers.length === 1) socket.write(request());
        else resolve();
      });
      socket.write(request());
    });
    socket.destroy();
    expect(answers.map((a) => [a.status, a.headers.connection])).toEqual([
      [200, "keep-alive"],
      [200, "keep-alive"],
    ]);
  });
});

describe("any well-formed HTTP request gets a proper answer, never 500", () => {
  const token = () => `Authorization: Bearer ${ctx.mock.token}\r\n`;

  it("serves an absolute-form request target by its path", async () => {
    const answer = await rawHttp(
      ctx.mock.port,
      `GET http://127.0.0.1:${ctx.mock.port}/consents/v1/consent-active-1?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n${token()}\r\n`,
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual(ctx.mock.seed.consents[0]);
    const elsewhere = await rawHttp(ctx.mock.port, `GET http://other.example/nothing HTTP/1.1\r\nHost: other.example\r\n${token()}\r\n`);
    expect([elsewhere.status, JSON.parse(elsewhere.body)]).toEqual([404, { code: "NotFound", message: "resource not found" }]);
  });

  it("answers OPTIONS * with 204 and the methods served", async () => {
    const answer = await rawHttp(ctx.mock.port, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(answer.status).toBe(204);
    expect(answer.headers.allow).toBe("GET, POST, PATCH, DELETE, OPTIONS");
    expect(answer.headers["x-fapi-interaction-id"]).toMatch(UUID);
  });

  it.each([
    ["GET * (asterisk-form on another method)", "GET * HTTP/1.1", 404],
    ["TRACE, which Fetch cannot carry", "TRACE / HTTP/1.1", 405],
    ["HEAD on a GET route", "HEAD /consents/v1/consent-active-1 HTTP/1.1", 405],
    ["an unknown method", "PROPFIND /notifications/v1/subscriptions HTTP/1.1", 405],
    ["a websocket upgrade", "GET /notifications/v1/subscriptions HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket", 200],
    ["HTTP/1.0 without Host", "GET /notifications/v1/subscriptions HTTP/1.0", 200],
  ])("answers %s", async (_, line, status) => {
    const host = line.endsWith("HTTP/1.0") ? "" : "Host: x\r\n";
    const answer = await rawHttp(ctx.mock.port, `${line}\r\n${host}${token()}\r\n`, { head: line.startsWith("HEAD") });
    expect(answer.status).toBe(status);
    expect(answer.headers["x-fapi-interaction-id"]).toMatch(UUID);
    if (status === 405) expect(answer.headers.allow).toContain("GET");
  });

  it("answers CONNECT with 405 and an FDX body", async () => {
    const answer = await rawHttp(ctx.mock.port, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nx-fapi-interaction-id: connect-1\r\n\r\n");
    expect(answer.status).toBe(405);
    expect(JSON.parse(answer.body)).toEqual({ code: "1206", message: "Method Not Allowed" });
    expect(answer.headers["x-fapi-interaction-id"]).toBe("connect-1");
  });

  it("answers a non-HTTP absolute-form target with 404, not 500", async () => {
    const answer = await rawHttp(ctx.mock.port, `GET ftp://example.com/consents/v1/consent-active-1 HTTP/1.1\r\nHost: x\r\n${token()}\r\n`);
    expect([answer.status, JSON.parse(answer.body)]).toEqual([404, { code: "NotFound", message: "resource not found" }]);
  });

  it("survives a client that hangs up in the middle of a body, and serves the next one", async () => {
    const socket = net.connect(ctx.mock.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      `POST /notifications/v1/subscriptions HTTP/1.1\r\nHost: x\r\n${token()}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"category":`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    const next = await rawHttp(ctx.mock.port, `GET /notifications/v1/subscriptions HTTP/1.1\r\nHost: x\r\n${token()}\r\n`);
    expect(next.status).toBe(200);
    expect(ctx.mock.subscriptions.filter((s) => s.category === undefined)).toEqual([]);
  });

  it("answers a GET that carries a body, without reading the body", async () => {
    const answer = await rawHttp(ctx.mock.port, `GET /notifications/v1/subscriptions HTTP/1.1\r\nHost: x\r\n${token()}Content-Length: 100000000\r\n\r\n{}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.connection).toBe("close");
  });
});
