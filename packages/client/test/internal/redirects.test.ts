// A download's redirects, followed by hand (internal/redirects.ts): at most 5
// hops, only to http(s), never from https: down to http:, the token only on
// the origin named; anything else is FdxLinkError, not retried.
import { HttpResponse, http } from "msw";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, FdxBadRequestError, FdxLinkError } from "../../src/index.js";
import { startServer, type Handler, type TestServer } from "../support/statements.js";
import { rejectionOf, useMsw } from "../support/http.js";

const PDF = Buffer.from("%PDF-1.7\n%%EOF\n");
const TOKEN = "tkn-secret-redirects-0123";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: Handler): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

const clientFor = (server: TestServer) => createClient({ baseUrl: server.origin, token: TOKEN, maxRetries: 2 });

/** Redirects /hop/N to /hop/N+1 until `hops`, then serves the PDF. */
const chain =
  (hops: number): Handler =>
  (req, res) => {
    const n = Number(/^\/hop\/(\d+)$/.exec(req.url ?? "")?.[1] ?? 0);
    if (n < hops) res.writeHead(302, { location: `/hop/${n + 1}` }).end();
    else res.writeHead(200, { "content-type": "application/pdf" }).end(PDF);
  };

describe("redirects of a download", () => {
  it("follows five hops, and refuses a sixth with FdxLinkError, not retried", async () => {
    const five = await serve(chain(5));
    expect(Buffer.from(await (await clientFor(five).statements.download("/hop/0")).arrayBuffer())).toEqual(PDF);
    expect(five.urls()).toEqual(["/hop/0", "/hop/1", "/hop/2", "/hop/3", "/hop/4", "/hop/5"]);

    const six = await serve(chain(6));
    const error = (await rejectionOf(clientFor(six).statements.download("/hop/0"))) as FdxLinkError;
    expect(error).toBeInstanceOf(FdxLinkError);
    expect(error.message).toContain("more than 5 redirects");
    expect(error.href).toBe("/hop/6");
    // Six requests, once: the retry budget of 2 was not spent on it.
    expect(six.urls()).toHaveLength(6);
  });

  it.each([
    ["file:///etc/passwd", "not an http(s) URL"],
    ["data:application/pdf;base64,JVBERi0=", "not an http(s) URL"],
    ["javascript:alert(1)", "not an http(s) URL"],
    ["http://user:pass@127.0.0.1/x", "it carries credentials"],
    ["http://[::1", "not a valid URL"],
  ])("refuses a redirect to %s with FdxLinkError, not retried as a connection error", async (location, why) => {
    const server = await serve((_req, res) => res.writeHead(302, { location }).end());
    const error = (await rejectionOf(clientFor(server).statements.download("/s.pdf"))) as FdxLinkError;
    expect(error).toBeInstanceOf(FdxLinkError);
    expect(error.message).toContain(why);
    expect(error.href).toBe(location);
    expect(server.urls()).toEqual(["/s.pdf"]);
  });

  it("sends the token to the origin named only: not to another, nor back after leaving it", async () => {
    const origin = await serve((req, res) => {
      if (req.url === "/s.pdf") res.writeHead(302, { location: `${other.origin}/cdn/s.pdf` }).end();
      else res.writeHead(200, { "content-type": "application/pdf" }).end(PDF);
    });
    const other = await serve((_req, res) => res.writeHead(307, { location: `${origin.origin}/back.pdf` }).end());
    expect(Buffer.from(await (await clientFor(origin).statements.download("/s.pdf")).arrayBuffer())).toEqual(PDF);
    expect(origin.received.map((r) => [r.url, r.headers.authorization])).toEqual([
      ["/s.pdf", `Bearer ${TOKEN}`],
      ["/back.pdf", undefined],
    ]);
    expect(other.received[0]!.headers.authorization).toBeUndefined();
    // The other headers go along.
    expect(other.received[0]!.headers.accept).toBe("application/pdf");
  });

  it("sends the token on every hop that stays on the origin named", async () => {
    const server = await serve(chain(3));
    expect(Buffer.from(await (await clientFor(server).statements.download("/hop/0")).arrayBuffer())).toEqual(PDF);
    expect(server.received.map((r) => [r.url, r.headers.authorization])).toEqual(
      ["/hop/0", "/hop/1", "/hop/2", "/hop/3"].map((url) => [url, `Bearer ${TOKEN}`]),
    );
  });

  it("follows a 300 (Multiple Choices) that names a Location", async () => {
    const server = await serve((req, res) => {
      if (req.url === "/s.pdf") res.writeHead(300, { location: "/choice.pdf" }).end();
      else res.writeHead(200, { "content-type": "application/pdf" }).end(PDF);
    });
    expect(Buffer.from(await (await clientFor(server).statements.download("/s.pdf")).arrayBuffer())).toEqual(PDF);
    expect(server.urls()).toEqual(["/s.pdf", "/choice.pdf"]);
  });

  it("stops at the first answer that is not a 3xx, even one with a Location", async () => {
    const server = await serve((req, res) => {
      if (req.url === "/s.pdf") res.writeHead(302, { location: "/final.pdf" }).end();
      else res.writeHead(200, { "content-type": "application/pdf", location: "/elsewhere.pdf" }).end(PDF);
    });
    expect(Buffer.from(await (await clientFor(server).statements.download("/s.pdf")).arrayBuffer())).toEqual(PDF);
    expect(server.urls()).toEqual(["/s.pdf", "/final.pdf"]);
  });

  it("answers a 400 after a hop with its error, and does not follow the 400's Location", async () => {
    const server = await serve((req, res) => {
      if (req.url === "/s.pdf") res.writeHead(302, { location: "/bad.pdf" }).end();
      else
        res.writeHead(400, { "content-type": "application/json", location: "/elsewhere.pdf" }).end(JSON.stringify({ code: "1107", message: "Bad date range" }));
    });
    const error = await rejectionOf(clientFor(server).statements.download("/s.pdf"));
    expect(error).toBeInstanceOf(FdxBadRequestError);
    expect(error).toMatchObject({ status: 400, code: "1107", message: "Bad date range" });
    expect(server.urls()).toEqual(["/s.pdf", "/bad.pdf"]);
  });

  it.each([
    ["a user name only", "http://user@127.0.0.1/x"],
    ["a password only", "http://:pass@127.0.0.1/x"],
  ])("refuses a redirect whose URL carries %s", async (_, location) => {
    const server = await serve((_req, res) => res.writeHead(302, { location }).end());
    const error = (await rejectionOf(clientFor(server).statements.download("/s.pdf"))) as FdxLinkError;
    expect(error).toBeInstanceOf(FdxLinkError);
    expect(error.message).toContain("it carries credentials");
    expect(error.href).toBe(location);
    expect(server.urls()).toEqual(["/s.pdf"]);
  });

  it("redacts the token from a Location that carries it", async () => {
    const server = await serve((_req, res) => res.writeHead(302, { location: `file:///x?access_token=${TOKEN}` }).end());
    const error = (await rejectionOf(clientFor(server).statements.download("/s.pdf"))) as FdxLinkError;
    expect(error.href).toBe("file:///x?access_token=[redacted]");
    expect(JSON.stringify(error) + String(error.stack)).not.toContain(TOKEN);
  });
});

describe("from https: down to http:", () => {
  const { server } = useMsw();
  it("is refused with FdxLinkError, and nothing is sent to the http: place", async () => {
    let plain = 0;
    server.use(
      http.get("https://docs.test/s.pdf", () => new HttpResponse(null, { status: 302, headers: { location: "http://docs.test/s.pdf" } })),
      http.get("http://docs.test/s.pdf", () => {
        plain++;
        return new HttpResponse(PDF, { headers: { "content-type": "application/pdf" } });
      }),
    );
    const client = createClient({ baseUrl: "https://docs.test", token: TOKEN, maxRetries: 2 });
    const error = (await rejectionOf(client.statements.download("/s.pdf"))) as FdxLinkError;
    expect(error).toBeInstanceOf(FdxLinkError);
    expect(error.message).toContain("it leaves https: for http:");
    expect(plain).toBe(0);
  });
});

describe("from https: to https:", () => {
  const { seen, on } = useMsw();
  it("is followed to another origin, without the token and without the Location's fragment", async () => {
    on("get", "https://docs.test/s.pdf", () => new HttpResponse(null, { status: 302, headers: { location: "https://cdn.test/files/s.pdf#page=2" } }));
    on("get", "https://cdn.test/files/s.pdf", () => new HttpResponse(PDF, { headers: { "content-type": "application/pdf" } }));
    const client = createClient({ baseUrl: "https://docs.test", token: TOKEN, maxRetries: 2 });
    expect(Buffer.from(await (await client.statements.download("/s.pdf")).arrayBuffer())).toEqual(PDF);
    expect(seen.map((r) => [r.url, r.headers.authorization])).toEqual([
      ["https://docs.test/s.pdf", `Bearer ${TOKEN}`],
      ["https://cdn.test/files/s.pdf", undefined],
    ]);
  });
});

describe("in a browser, which hides a redirect's Location (an opaque redirect)", () => {
  it("asks again with redirect: follow, and the platform follows by its own rules", async () => {
    const { followRedirects } = await import("../../src/internal/redirects.js");
    // What a browser's fetch answers a manual redirect with; Node cannot make one.
    const opaque = { type: "opaqueredirect", status: 0, headers: new Headers(), body: null } as unknown as Response;
    const final = new Response("%PDF-1.7");
    const calls: [string, RequestRedirect | undefined][] = [];
    const result = await followRedirects(
      opaque,
      "https://docs.test/s.pdf",
      { method: "GET", redirect: "manual" },
      async (url, init) => {
        calls.push([url, init.redirect]);
        return final;
      },
      () => new Error("no redirect is refused here"),
    );
    expect(result).toBe(final);
    expect(calls).toEqual([["https://docs.test/s.pdf", "follow"]]);
  });
});
