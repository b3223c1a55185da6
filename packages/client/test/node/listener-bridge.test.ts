// toNodeListener as a general Node↔Fetch bridge, over raw TCP to a real
// node:http server on 127.0.0.1: the request-target forms of RFC 9112 (origin,
// absolute, asterisk), a fixed origin, connection headers, methods Fetch cannot
// carry, a Response.error(), and closing a connection whose body was not read.
import net from "node:net";
import { describe, expect, it } from "vitest";
import { FdxValidationError } from "../../src/core/error.js";
import { toNodeListener } from "../../src/node/index.js";
import { type FetchHandler, useListenerServers } from "../support/listener.js";

const serve = useListenerServers();

interface RawOutcome {
  /** Everything the server sent. */
  text: string;
  /** The socket error that ended the connection, if any (`ECONNRESET` for a reset). */
  errorCode: string | undefined;
}

/** Sends raw bytes on a new connection and keeps it open; resolves once the server has closed or reset it. */
function raw(port: number, text: string): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(text));
    let received = "";
    let errorCode: string | undefined;
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("error", (error: NodeJS.ErrnoException) => (errorCode = error.code));
    socket.on("close", () => resolve({ text: received, errorCode }));
  });
}

/** Sends one request with `Connection: close`; resolves with the status line, header map and (de-chunked) body. */
async function request(port: number, head: string) {
  const { text } = await raw(port, `${head}\r\nConnection: close\r\n\r\n`);
  const split = text.indexOf("\r\n\r\n");
  const [status = "", ...lines] = text.slice(0, split).split("\r\n");
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
  let body = text.slice(split + 4);
  if (headers["transfer-encoding"] === "chunked") {
    let decoded = "";
    for (let at = 0; ; ) {
      const size = parseInt(body.slice(at, body.indexOf("\r\n", at)), 16);
      if (!(size > 0)) break;
      const start = body.indexOf("\r\n", at) + 2;
      decoded += body.slice(start, start + size);
      at = start + size + 2;
    }
    body = decoded;
  }
  return { status, headers, body };
}

/** A handler that records the Request it was given and answers 200 "ok". */
function recorder() {
  const seen: { method: string; url: string; headers: [string, string][]; body: string }[] = [];
  const handler: FetchHandler = async (req) => {
    // Recorded before the body is read: pipelined requests reach the handler before the previous one is answered.
    const entry = { method: req.method, url: req.url, headers: [...req.headers], body: "" };
    seen.push(entry);
    if (req.body) entry.body = await req.text();
    return new Response("ok");
  };
  return { seen, handler };
}

describe("the request target", () => {
  it("serves an absolute-form target (as proxies send) by its path, on the target's own origin", async () => {
    const { seen, handler } = recorder();
    const port = await serve(handler);
    const answer = await request(port, "GET http://elsewhere.example:8080/hooks/a?x=1 HTTP/1.1\r\nHost: ignored.example");
    expect(answer.status).toBe("HTTP/1.1 200 OK");
    expect(seen.map((s) => s.url)).toEqual(["http://elsewhere.example:8080/hooks/a?x=1"]);
  });

  it("builds each request's URL from its own Host header, one after another", async () => {
    const { seen, handler } = recorder();
    const port = await serve(handler);
    for (const host of ["a.example", "a.example", "b.example:8080", "bad host", "a.example"]) await request(port, `GET /h HTTP/1.1\r\nHost: ${host}`);
    expect(seen.map((s) => s.url)).toEqual(["http://a.example/h", "http://a.example/h", "http://b.example:8080/h", "http://localhost/h", "http://a.example/h"]);
  });

  it("hands a non-HTTP absolute target to the handler as / on the Host's origin", async () => {
    const { seen, handler } = recorder();
    const port = await serve(handler);
    await request(port, "GET ftp://example.com/hooks HTTP/1.1\r\nHost: h.example");
    expect(seen.map((s) => s.url)).toEqual(["http://h.example/"]);
  });

  it("hands OPTIONS * to the handler as the path /*, and sends its answer", async () => {
    const port = await serve((req) => new Response(null, { status: 204, headers: { allow: "POST", "x-seen": `${req.method} ${req.url}` } }));
    const answer = await request(port, "OPTIONS * HTTP/1.1\r\nHost: h.example");
    expect(answer.status).toBe("HTTP/1.1 204 No Content");
    expect(answer.headers["x-seen"]).toBe("OPTIONS http://h.example/*");
    expect(answer.headers.allow).toBe("POST");
  });

  it("puts every target on a fixed origin when one is given, whatever Host says", async () => {
    const { seen, handler } = recorder();
    const port = await serve(handler, { origin: "https://hooks.example.com" });
    await request(port, "GET /hooks?x=1 HTTP/1.1\r\nHost: attacker.example");
    await request(port, "GET http://attacker.example/hooks HTTP/1.1\r\nHost: attacker.example");
    await request(port, "OPTIONS * HTTP/1.1\r\nHost: attacker.example");
    expect(seen.map((s) => s.url)).toEqual(["https://hooks.example.com/hooks?x=1", "https://hooks.example.com/hooks", "https://hooks.example.com/*"]);
  });

  it.each([
    ["a path", "https://hooks.example.com/webhooks"],
    ["credentials", "https://user:secret@hooks.example.com"],
    ["another scheme", "ftp://hooks.example.com"],
    ["no URL at all", "hooks.example.com"],
    ["a number", 443],
  ])("refuses an origin with %s, with a typed error naming the option", (_, origin) => {
    const attempt = () => toNodeListener(() => new Response("ok"), { origin: origin as string });
    expect(attempt).toThrow(FdxValidationError);
    expect(attempt).toThrow(/origin: must be an http\(s\) origin/);
    // The value itself (it may hold credentials) is not repeated.
    expect(attempt).not.toThrow(/secret/);
  });

  it("refuses a handler that is not a function", () => {
    expect(() => toNodeListener(undefined as unknown as FetchHandler)).toThrow(/handler: must be a function/);
  });
});

describe("the request headers", () => {
  it("leaves out the connection's own headers and keeps the rest, with a de-chunked body", async () => {
    const { seen, handler } = recorder();
    const port = await serve(handler);
    await raw(
      port,
      "POST /hooks HTTP/1.1\r\nHost: h.example\r\nConnection: keep-alive, TE\r\nKeep-Alive: timeout=5\r\nTE: trailers\r\n" +
        "Transfer-Encoding: chunked\r\nX-Kept: yes\r\nContent-Type: text/plain\r\n\r\n5\r\nhello\r\n0\r\n\r\n" +
        "GET /end HTTP/1.1\r\nHost: h.example\r\nConnection: close\r\n\r\n",
    );
    expect(seen[0]).toEqual({
      method: "POST",
      url: "http://h.example/hooks",
      headers: [
        ["content-type", "text/plain"],
        ["host", "h.example"],
        ["x-kept", "yes"],
      ],
      body: "hello",
    });
  });
});

describe("methods the Fetch API cannot carry", () => {
  it("answers TRACE with 501 by default, without calling the handler", async () => {
    const { seen, handler } = recorder();
    const port = await serve(handler);
    const answer = await request(port, "TRACE /hooks HTTP/1.1\r\nHost: h.example");
    expect(answer.status).toBe("HTTP/1.1 501 Not Implemented");
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(answer.body).toBe('{"error":"method not implemented"}');
    expect(seen).toEqual([]);
  });

  it("answers TRACE with onForbiddenMethod's response, given the node request", async () => {
    const port = await serve(() => new Response("handler"), {
      onForbiddenMethod: (req) => new Response(null, { status: 405, headers: { allow: "GET, POST", "x-method": String(req.method) } }),
    });
    const answer = await request(port, "TRACE / HTTP/1.1\r\nHost: h.example");
    expect([answer.status, answer.headers.allow, answer.headers["x-method"]]).toEqual(["HTTP/1.1 405 Method Not Allowed", "GET, POST", "TRACE"]);
  });

  it("answers 500 when onForbiddenMethod throws", async () => {
    const port = await serve(() => new Response("handler"), {
      onForbiddenMethod: () => {
        throw new Error("boom");
      },
    });
    const answer = await request(port, "TRACE / HTTP/1.1\r\nHost: h.example");
    expect([answer.status, answer.body]).toEqual(["HTTP/1.1 500 Internal Server Error", '{"error":"internal error"}']);
  });
});

describe("the connection", () => {
  it("resets the connection for a Response.error(), and serves the next one", async () => {
    let calls = 0;
    const port = await serve(() => (++calls === 1 ? Response.error() : new Response("ok")));
    const reset = await raw(port, "GET / HTTP/1.1\r\nHost: h.example\r\n\r\n");
    expect(reset).toEqual({ text: "", errorCode: "ECONNRESET" });
    const next = await request(port, "GET / HTTP/1.1\r\nHost: h.example");
    expect([next.status, next.body]).toEqual(["HTTP/1.1 200 OK", "ok"]);
  });

  it("says Connection: close and closes after answering without reading the body, though the client keeps sending", async () => {
    const port = await serve(() => new Response("no", { status: 401 }));
    // Declares 10 MB and sends a little: the server must not wait for, or read, the rest.
    const outcome = await raw(port, `POST /hooks HTTP/1.1\r\nHost: h.example\r\nContent-Length: 10000000\r\n\r\n${"x".repeat(1000)}`);
    const head = outcome.text.slice(0, outcome.text.indexOf("\r\n\r\n"));
    expect(head.split("\r\n")[0]).toBe("HTTP/1.1 401 Unauthorized");
    expect(head.toLowerCase()).toContain("\r\nconnection: close");
    // The whole answer arrived, then the server closed: the raw() promise settled though the client never ended.
    expect(outcome.text).toMatch(/\r\n\r\n2\r\nno\r\n0\r\n\r\n$/);
  });

  it("keeps the connection alive after a body the handler read in full", async () => {
    const port = await serve(async (req) => new Response(`got ${(await req.text()).length}`));
    const outcome = await raw(
      port,
      "POST /a HTTP/1.1\r\nHost: h.example\r\nContent-Length: 3\r\n\r\nabc" +
        "POST /b HTTP/1.1\r\nHost: h.example\r\nContent-Length: 2\r\nConnection: close\r\n\r\nde",
    );
    const answers = outcome.text.split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    expect(answers[0]!.toLowerCase()).toContain("connection: keep-alive");
    expect(answers[0]).toContain("\r\ngot 3\r\n");
    expect(answers[1]).toContain("\r\ngot 2\r\n");
  });
});
