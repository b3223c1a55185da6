// Downloads against a real HTTP server: exact paths, headers, streaming, errors.
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import {
  createClient,
  FdxAbortError,
  FdxApiError,
  FdxConnectionError,
  FdxInternalServerError,
  FdxLinkError,
  FdxNotFoundError,
  FdxTimeoutError,
  FdxValidationError,
  type Statement,
} from "../../src/index.js";
import { type Handler, json, startServer, type TestServer } from "../support/statements.js";
import { rejectionOf } from "../support/http.js";

const PDF = Buffer.from("%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: Handler): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

/** Answers every request with the PDF, whatever the path. */
const pdf: Handler = (_req, res) => {
  res.writeHead(200, { "content-type": "application/pdf", "content-length": PDF.length });
  res.end(PDF);
};

function clientFor(server: TestServer, options: { timeoutMs?: number } = {}) {
  return createClient({ baseUrl: server.origin, productsUrl: `${server.origin}/products/`, token: "tkn-secret", maxRetries: 0, ...options });
}

async function read(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe("what is requested", () => {
  it("downloads a tokenized statement id through its link, unchanged", async () => {
    const server = await serve(pdf);
    const href = "/products/statements/v2/P/A/stmt%3A2025%7C01%2Fx%20y";
    const statement: Statement = { statementId: "stmt:2025|01/x y", links: [{ href, action: "GET", types: ["application/pdf"] }] };
    const document = await clientFor(server).statements.download(statement);
    expect(await read(document.body)).toEqual(PDF);
    expect(server.urls()).toEqual([href]);
    expect(server.received[0]!.headers.authorization).toBe("Bearer tkn-secret");
  });

  it("sends Accept: application/pdf by default and the accept option when given", async () => {
    const server = await serve(pdf);
    const statements = clientFor(server).statements;
    await (await statements.download("/products/x")).arrayBuffer();
    await (await statements.download("/products/x", { accept: "image/png" })).arrayBuffer();
    await (await statements.download("/products/x", { accept: "image/png", headers: { accept: "text/plain" } })).arrayBuffer();
    await (await statements.download("/products/x", { headers: { accept: "text/plain" } })).arrayBuffer();
    expect(server.received.map((r) => r.headers.accept)).toEqual(["application/pdf", "image/png", "image/png", "text/plain"]);
  });

  it("names the accept option in its issues", async () => {
    const server = await serve(pdf);
    const statements = clientFor(server).statements;
    const issues = async (accept: unknown) =>
      ((await statements.download("/products/x", { accept: accept as string }).catch((e: unknown) => e)) as FdxValidationError).issues;
    expect(await issues(42)).toEqual([{ path: "accept", message: "must be a non-empty media type" }]);
    expect(await issues(" ")).toEqual([{ path: "accept", message: "must be a non-empty media type" }]);
    expect(await issues("a\nb")).toEqual([{ path: "accept", message: "is not a valid HTTP header value" }]);
    expect(server.received).toHaveLength(0);
  });

  it("picks the statement's GET link that offers the wanted media type", async () => {
    const server = await serve(pdf);
    const statement: Statement = {
      links: [
        { href: "/products/doc.png", action: "GET", types: ["image/png"] },
        { href: "/products/doc-post", action: "POST", types: ["application/pdf"] },
        { href: "/products/doc.pdf", types: ["application/pdf"] },
      ],
    };
    const statements = clientFor(server).statements;
    await (await statements.download(statement)).arrayBuffer();
    await (await statements.download(statement, { accept: "image/png" })).arrayBuffer();
    await (await statements.download(statement, { accept: "image/jpeg" })).arrayBuffer();
    expect(server.urls()).toEqual(["/products/doc.pdf", "/products/doc.png", "/products/doc.png"]);
  });

  it("skips links it cannot use (null, no href, a non-string or empty href, another action) and takes the first usable one", async () => {
    const server = await serve(pdf);
    const links = [
      null,
      { action: "GET" },
      { href: 42 },
      { href: "" },
      { href: "/products/post", action: "POST" },
      { href: "/products/ok", types: "application/pdf" },
      { href: "/products/later" },
    ];
    await (await clientFor(server).statements.download({ links } as unknown as Statement)).arrayBuffer();
    expect(server.urls()).toEqual(["/products/ok"]);
  });

  it("matches the accept value's media types, any of a list, without parameters or case, against each link's types", async () => {
    const server = await serve(pdf);
    const statement = {
      links: [
        { href: "/products/doc.txt", types: ["text/plain"] },
        { href: "/products/doc.png", types: ["IMAGE/PNG"] },
        { href: "/products/doc.pdf", types: ["application/pdf"] },
      ],
    };
    const statements = clientFor(server).statements;
    await (await statements.download(statement, { accept: "image/jpeg, Image/Png;q=0.5" })).arrayBuffer();
    await (await statements.download(statement, { accept: "image/jpeg,application/pdf" })).arrayBuffer();
    await (await statements.download(statement, { accept: "image/jpeg" })).arrayBuffer();
    expect(server.urls()).toEqual(["/products/doc.png", "/products/doc.pdf", "/products/doc.txt"]);
  });

  it("takes a link that offers the wanted type among others", async () => {
    const server = await serve(pdf);
    const statement = {
      links: [
        { href: "/products/doc.html", types: ["text/html"] },
        { href: "/products/doc", types: ["text/html", "application/pdf"] },
      ],
    };
    await (await clientFor(server).statements.download(statement)).arrayBuffer();
    expect(server.urls()).toEqual(["/products/doc"]);
  });

  it("refuses a statement's link to another origin, the token redacted from its href when the token is a string", async () => {
    const server = await serve(pdf);
    const statement = { links: [{ href: "https://elsewhere.test/doc.pdf?access_token=tkn-secret" }] };
    const error = (await rejectionOf(clientFor(server).statements.download(statement))) as FdxLinkError;
    expect(error).toBeInstanceOf(FdxLinkError);
    expect(error.href).toBe("https://elsewhere.test/doc.pdf?access_token=[redacted]");
    // A token function's tokens are not known when the link is read: the link is refused all the same.
    const withFunction = createClient({ baseUrl: server.origin, productsUrl: `${server.origin}/products/`, token: async () => "tkn-secret", maxRetries: 0 });
    const refused = (await rejectionOf(withFunction.statements.download({ links: [{ href: "https://elsewhere.test/doc.pdf" }] }))) as FdxLinkError;
    expect(refused).toBeInstanceOf(FdxLinkError);
    expect(refused.href).toBe("https://elsewhere.test/doc.pdf");
    expect(server.received).toHaveLength(0);
  });

  it("falls back to the statement's ids when none of its links is usable", async () => {
    const server = await serve(pdf);
    const statement = { providerId: "P", accountId: "A", statementId: "S", links: [{ href: "/products/x", action: "POST" }] };
    await (await clientFor(server).statements.download(statement as unknown as Statement)).arrayBuffer();
    expect(server.urls()).toEqual(["/products/statements/v2/P/A/S"]);
  });

  it("says which part of an unusable target is wrong", async () => {
    const server = await serve(pdf);
    const statements = clientFor(server).statements;
    const issues = async (target: unknown) => ((await statements.download(target as Statement).catch((e: unknown) => e)) as FdxValidationError).issues;
    expect(await issues({ links: [{ href: "/products/x", action: "POST" }] })).toEqual([
      { path: "target.links", message: "the statement has no GET link to download it from" },
    ]);
    expect(await issues({ statementId: "S", links: "nope" })).toEqual([{ path: "target.links", message: "the statement has no GET link to download it from" }]);
    expect(await issues("")).toEqual([{ path: "target", message: "must be a non-empty href" }]);
    expect(await issues(7)).toEqual([{ path: "target", message: "must be a Statement, an href or { providerId, accountId, statementId }" }]);
    expect(await issues({ providerId: "P", accountId: "", statementId: "S" })).toEqual([expect.objectContaining({ path: "accountId" })]);
    expect(server.received).toHaveLength(0);
  });

  it("percent-encodes each of { providerId, accountId, statementId } as a path segment", async () => {
    const server = await serve(pdf);
    await (await clientFor(server).statements.download({ providerId: "p/1", accountId: "a b", statementId: "s:1|x/../y" })).arrayBuffer();
    expect(server.urls()).toEqual(["/products/statements/v2/p%2F1/a%20b/s%3A1%7Cx%2F..%2Fy"]);
  });

  it("rejects unusable targets before sending anything", async () => {
    const server = await serve(pdf);
    const statements = clientFor(server).statements;
    const foreign = "http://localhost:1/statements/v2/P/A/S";
    await expect(statements.download({ links: [{ href: "/products/x", action: "POST" }] })).rejects.toBeInstanceOf(FdxValidationError);
    await expect(statements.download({ statementId: "S" })).rejects.toBeInstanceOf(FdxValidationError);
    await expect(statements.download({ providerId: "P", accountId: "A", statementId: ".." })).rejects.toBeInstanceOf(FdxValidationError);
    await expect(statements.download("")).rejects.toBeInstanceOf(FdxValidationError);
    await expect(statements.download(foreign)).rejects.toMatchObject({ name: "FdxLinkError", href: foreign });
    await expect(statements.download({ links: [{ href: "javascript:alert(1)" }] })).rejects.toBeInstanceOf(FdxLinkError);
    await expect(statements.download("//evil.test/x")).rejects.toBeInstanceOf(FdxLinkError);
    expect(server.received).toHaveLength(0);
  });
});

describe("the document", () => {
  it("exposes content type, length, and the bytes as ArrayBuffer or Blob", async () => {
    const server = await serve(pdf);
    const statements = clientFor(server).statements;
    const first = await statements.download("/products/a.pdf");
    expect(first.contentType).toBe("application/pdf");
    expect(first.contentLength).toBe(PDF.length);
    expect(Buffer.from(await first.arrayBuffer())).toEqual(PDF);
    const blob = await (await statements.download("/products/a.pdf")).blob();
    expect(blob.type).toBe("application/pdf");
    expect(Buffer.from(await blob.arrayBuffer())).toEqual(PDF);
  });

  it("reports no length for a chunked response", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "image/png" });
      res.write(PDF.subarray(0, 10));
      res.end(PDF.subarray(10));
    });
    const document = await clientFor(server).statements.download("/products/a.png", { accept: "image/png" });
    expect(document.contentLength).toBeUndefined();
    expect(Buffer.from(await document.arrayBuffer())).toEqual(PDF);
  });

  it("follows a 302 redirect", async () => {
    const server = await serve((req, res) => {
      if (req.url === "/products/s1") {
        res.writeHead(302, { location: "/files/s1.pdf" });
        res.end();
      } else pdf(req, res);
    });
    const document = await clientFor(server).statements.download("/products/s1");
    expect(Buffer.from(await document.arrayBuffer())).toEqual(PDF);
    expect(server.urls()).toEqual(["/products/s1", "/files/s1.pdf"]);
  });

  it("follows a redirect to another origin without the bearer token (the platform drops it)", async () => {
    const other = await serve(pdf);
    const server = await serve((_req, res) => {
      res.writeHead(302, { location: `${other.origin.replace("127.0.0.1", "localhost")}/cdn/s1.pdf` });
      res.end();
    });
    const document = await clientFor(server).statements.download("/products/s1");
    expect(Buffer.from(await document.arrayBuffer())).toEqual(PDF);
    expect(server.received[0]!.headers.authorization).toBe("Bearer tkn-secret");
    expect(other.urls()).toEqual(["/cdn/s1.pdf"]);
    expect(other.received[0]!.headers.authorization).toBeUndefined();
  });

  it("keeps streaming a slow body past timeoutMs: the timeout covers only the wait for headers", async () => {
    const server = await serve(async (_req, res) => {
      res.writeHead(200, { "content-type": "application/pdf" });
      res.flushHeaders();
      // Headers at once (a loaded machine still gets them well inside the timeout), then the body over 1.5 s.
      const step = Math.ceil(PDF.length / 6);
      for (let i = 0; i < PDF.length; i += step) {
        res.write(PDF.subarray(i, i + step));
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      res.end();
    });
    // The body takes three times the 500 ms timeout.
    const document = await clientFor(server, { timeoutMs: 500 }).statements.download("/products/slow.pdf");
    expect(Buffer.from(await document.arrayBuffer())).toEqual(PDF);
  });

  it("cancels the body when the caller's signal aborts mid-stream", async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const server = await serve((_req, res: ServerResponse) => {
      res.writeHead(200, { "content-type": "application/pdf", "content-length": 1000 });
      res.write(PDF);
      res.on("close", closed);
    });
    const controller = new AbortController();
    const document = await clientFor(server).statements.download("/products/held.pdf", { signal: controller.signal });
    const reader = document.body.getReader();
    expect((await reader.read()).value?.byteLength).toBeGreaterThan(0);
    controller.abort();
    await expect(reader.read()).rejects.toBeInstanceOf(FdxAbortError);
    await connectionClosed;
  });
});

describe("error responses", () => {
  it("turns a JSON error body into the matching FdxApiError", async () => {
    const server = await serve((_req, res) => json(res, 404, { code: "1108", message: "Statement not found" }));
    const error = await clientFor(server)
      .statements.download("/products/nope")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxNotFoundError);
    expect(error).toMatchObject({ status: 404, code: "1108", message: "Statement not found" });
  });

  it("turns a non-JSON error body into an FdxApiError too", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(500, { "content-type": "text/html" });
      res.end("<html><body>Boom</body></html>");
    });
    const error = await clientFor(server)
      .statements.download("/products/boom")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxInternalServerError);
    expect(error).toBeInstanceOf(FdxApiError);
    expect((error as FdxApiError).status).toBe(500);
  });
});

describe("edge cases: targets, headers and bodies", () => {
  // statements.download at the edges: unusable `accept` values and targets,
  // responses without a media type, without a body or with an encoded body, and
  // bodies that fail or are cancelled while streaming.
  const PRODUCTS = "https://products.test";
  const target = { providerId: "p", accountId: "a", statementId: "s-1" };

  function clientAnswering(reply: (request: Request) => Response) {
    const requests: Request[] = [];
    const client = createClient({
      baseUrl: PRODUCTS,
      token: "t",
      maxRetries: 0,
      fetch: async (request: Request) => {
        requests.push(request);
        return reply(request);
      },
    });
    return { client, requests };
  }

  const bytes = (text: string) => new TextEncoder().encode(text);

  describe("checks before any request", () => {
    it.each(["", "   "])("accept %j is refused", async (accept) => {
      const { client, requests } = clientAnswering(() => new Response("x"));
      await expect(client.statements.download(target, { accept })).rejects.toBeInstanceOf(FdxValidationError);
      expect(requests).toEqual([]);
    });

    it("an accept value that is no valid header value is refused", async () => {
      const { client, requests } = clientAnswering(() => new Response("x"));
      const error = await client.statements.download(target, { accept: "application/pdf\r\nX-Evil: 1" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FdxValidationError);
      expect((error as FdxValidationError).issues[0]?.path).toBe("accept");
      expect(requests).toEqual([]);
    });

    it.each([42, null])("a target %s is refused", async (bad) => {
      const { client, requests } = clientAnswering(() => new Response("x"));
      await expect(client.statements.download(bad as never)).rejects.toBeInstanceOf(FdxValidationError);
      expect(requests).toEqual([]);
    });
  });

  describe("the document", () => {
    it("is application/octet-stream when the server names no media type", async () => {
      const { client } = clientAnswering(() => new Response(new Blob([bytes("%PDF-")]).stream(), { headers: { "content-length": "5" } }));
      const document = await client.statements.download(target);
      expect(document.contentType).toBe("application/octet-stream");
      expect(document.contentLength).toBe(5);
      expect(new TextDecoder().decode(await document.arrayBuffer())).toBe("%PDF-");
    });

    it("has no contentLength when the body was content-encoded (fetch decodes it)", async () => {
      const { client } = clientAnswering(
        () => new Response("%PDF-", { headers: { "content-type": "application/pdf", "content-encoding": "gzip", "content-length": "3" } }),
      );
      const document = await client.statements.download(target);
      expect(document.contentLength).toBeUndefined();
      await document.body.cancel();
    });

    it("keeps contentLength with an identity content-encoding", async () => {
      const { client } = clientAnswering(() => new Response("%PDF-", { headers: { "content-encoding": "Identity", "content-length": "5" } }));
      expect((await client.statements.download(target)).contentLength).toBe(5);
    });

    it.each(["5abc", "abc5", "-5", "5.0", "0x5", "5 5"])("has no contentLength when Content-Length is %j (not a plain number)", async (value) => {
      const { client } = clientAnswering(() => new Response("%PDF-", { headers: { "content-type": "application/pdf", "content-length": value } }));
      const document = await client.statements.download(target);
      expect(document.contentLength).toBeUndefined();
      expect(new TextDecoder().decode(await document.arrayBuffer())).toBe("%PDF-");
    });

    it("is empty when the response has no body", async () => {
      const { client } = clientAnswering(() => new Response(null, { status: 200 }));
      expect((await (await client.statements.download(target)).arrayBuffer()).byteLength).toBe(0);
      expect((await (await client.statements.download(target)).blob()).size).toBe(0);
    });
  });

  describe("streaming failures", () => {
    function failingAfterOneChunk(reason: unknown) {
      return () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(bytes("%PDF-1.7"));
            },
            pull(controller) {
              controller.error(reason);
            },
          }),
          { headers: { "content-type": "application/pdf" } },
        );
    }

    it("a body cut with a non-Error reason is an FdxConnectionError naming it", async () => {
      const { client } = clientAnswering(failingAfterOneChunk("socket closed"));
      const document = await client.statements.download(target);
      const error = await document.arrayBuffer().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FdxConnectionError);
      expect((error as Error).message).toContain("socket closed");
    });

    it("an FdxError from the body stream reaches the caller as it is", async () => {
      const timeout = new FdxTimeoutError("stalled");
      const { client } = clientAnswering(failingAfterOneChunk(timeout));
      const document = await client.statements.download(target);
      await expect(document.blob()).rejects.toBe(timeout);
    });

    it("cancelling the document's body cancels the response stream", async () => {
      let cancelled: unknown = "not cancelled";
      const { client } = clientAnswering(
        () =>
          new Response(
            new ReadableStream<Uint8Array>({
              pull(controller) {
                controller.enqueue(bytes("page"));
              },
              cancel(reason) {
                cancelled = reason;
              },
            }),
          ),
      );
      const document = await client.statements.download(target);
      const reader = document.body.getReader();
      await reader.read();
      await reader.cancel("enough");
      expect(cancelled).toBe("enough");
    });
  });
});
