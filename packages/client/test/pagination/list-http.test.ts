// Pagination against a real HTTP server: what the server receives, byte for byte.
import { afterEach, describe, expect, it } from "vitest";
import { createClient, FdxLinkError, FdxTimeoutError, FdxValidationError, type StatementListParams } from "../../src/index.js";
import { ids, json, page, routes, startServer, type TestServer } from "../support/statements.js";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Starts a server whose routes may name its own origin. */
async function serve(table: Record<string, unknown> | ((origin: string) => Record<string, unknown>)): Promise<TestServer> {
  let resolved: Record<string, unknown> = {};
  const server = await startServer((req, res) => routes(resolved)(req, res));
  resolved = typeof table === "function" ? table(server.origin) : table;
  servers.push(server);
  return server;
}

function clientFor(server: TestServer, productsPath = "") {
  return createClient({ baseUrl: server.origin, productsUrl: `${server.origin}${productsPath}`, token: "tkn-secret", maxRetries: 0 });
}

const FIRST = "/statements/v2/P/A";
const PA = { providerId: "P", accountId: "A" };

describe("following links", () => {
  it("sends each next href byte for byte: encoded characters and parameter order kept, nothing added", async () => {
    const second = "/statements/v2/P/A/page%2F2?z=1&a=%3D&cursor=abc";
    const third = "/statements/v2/P/A?cursor=a%7Cb%20c&z=9&limit=2";
    const server = await serve({
      [`${FIRST}?limit=2`]: page(["s1", "s2"], { next: second }),
      [second]: page(["s3", "s4"], { next: third }),
      [third]: page(["s5"]),
    });
    const all = await clientFor(server)
      .statements.list({ ...PA, limit: 2 })
      .toArray();
    expect(ids(all)).toEqual(["s1", "s2", "s3", "s4", "s5"]);
    expect(server.urls()).toEqual([`${FIRST}?limit=2`, second, third]);
    expect(server.received.map((r) => r.headers.authorization)).toEqual(Array(3).fill("Bearer tkn-secret"));
  });

  it("resolves host-relative hrefs against the origin, not the path prefix of productsUrl", async () => {
    const next = "/products/statements/v2/P/A?offset=2";
    const server = await serve({
      [`/api/products${FIRST}`]: page(["s1"], { next }),
      [next]: page(["s2"]),
    });
    const all = await clientFor(server, "/api/products/").statements.list(PA).toArray();
    expect(ids(all)).toEqual(["s1", "s2"]);
    expect(server.urls()).toEqual([`/api/products${FIRST}`, next]);
  });

  it("uses an absolute same-origin href as it is", async () => {
    const server = await serve((origin) => ({
      [FIRST]: page(["s1"], { next: `${origin}/elsewhere/page?cursor=x%2Fy` }),
      "/elsewhere/page?cursor=x%2Fy": page(["s2"]),
    }));
    const all = await clientFor(server).statements.list(PA).toArray();
    expect(ids(all)).toEqual(["s1", "s2"]);
    expect(server.urls()).toEqual([FIRST, "/elsewhere/page?cursor=x%2Fy"]);
  });
});

describe("the first request", () => {
  it("serialises Date and string times as ISO 8601 UTC, offset and limit as given", async () => {
    const server = await serve({});
    const params: StatementListParams = {
      ...PA,
      startTime: new Date(Date.UTC(2024, 0, 1)),
      endTime: "2024-06-30T23:59:59+02:00",
      offset: 40,
      limit: 20,
    };
    await clientFor(server)
      .statements.list(params)
      .toArray()
      .catch(() => {});
    const [url] = server.urls();
    const { pathname, searchParams } = new URL(url!, server.origin);
    expect(pathname).toBe(FIRST);
    expect([...searchParams]).toEqual([
      ["startTime", "2024-01-01T00:00:00.000Z"],
      ["endTime", "2024-06-30T21:59:59.000Z"],
      ["offset", "40"],
      ["limit", "20"],
    ]);
  });

  it("sends an opaque cursor offset as a string and leaves omitted parameters out", async () => {
    const server = await serve({});
    await clientFor(server)
      .statements.list({ ...PA, offset: "c/1 2" })
      .toArray()
      .catch(() => {});
    expect(server.urls()).toEqual([`${FIRST}?offset=c%2F1%202`]);
  });

  it("sends no query at all when only the ids are given, and percent-encodes the ids", async () => {
    const server = await serve({});
    await clientFor(server)
      .statements.list({ providerId: "p/1", accountId: "../a b" })
      .toArray()
      .catch(() => {});
    expect(server.urls()).toEqual(["/statements/v2/p%2F1/..%2Fa%20b"]);
  });

  it.each<[string, Partial<StatementListParams>, string]>([
    ["startTime after endTime", { startTime: "2025-02-01", endTime: "2025-01-01" }, "startTime"],
    ["an invalid date string", { startTime: "2025-02-30" }, "startTime"],
    ["a non-ISO date string", { endTime: "March 5, 2025" }, "endTime"],
    ["an Invalid Date object", { endTime: new Date(Number.NaN) }, "endTime"],
    ["limit 0", { limit: 0 }, "limit"],
    ["a fractional limit", { limit: 1.5 }, "limit"],
    ["offset -1", { offset: -1 }, "offset"],
    ["an empty cursor", { offset: "" }, "offset"],
    ["an empty providerId", { providerId: "" }, "providerId"],
    ["an accountId of ..", { accountId: ".." }, "accountId"],
  ])("rejects %s with FdxValidationError and sends nothing", async (_, bad, path) => {
    const server = await serve({});
    const statements = clientFor(server).statements;
    let error: unknown;
    try {
      for await (const _statement of statements.list({ ...PA, ...bad })) break;
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues.map((i) => i.path)).toContain(path);
    // Thrown by list() itself, so even a paginator never iterated reports it.
    expect(() => statements.list({ ...PA, ...bad })).toThrow(FdxValidationError);
    expect(server.received).toHaveLength(0);
  });
});

describe("laziness", () => {
  const table = {
    [FIRST]: page(["s1", "s2"], { next: "/p2" }),
    "/p2": page(["s3", "s4"], { next: "/p3" }),
    "/p3": page(["s5"]),
  };

  it("makes no request until iterated, and exactly one when the loop breaks after the first item", async () => {
    const server = await serve(table);
    const paginator = clientFor(server).statements.list(PA);
    expect(server.received).toHaveLength(0);
    const seen: unknown[] = [];
    for await (const statement of paginator) {
      seen.push(statement.statementId);
      break;
    }
    expect(seen).toEqual(["s1"]);
    expect(server.urls()).toEqual([FIRST]);
  });

  it("requests the next page only once the current one is used up", async () => {
    const server = await serve(table);
    const iterator = clientFor(server).statements.list(PA)[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.next();
    expect(server.received).toHaveLength(1);
    expect((await iterator.next()).value?.statementId).toBe("s3");
    expect(server.received).toHaveLength(2);
    await iterator.return?.();
  });

  it("toArray({ max }) stops requesting once it has enough", async () => {
    const server = await serve(table);
    const statements = clientFor(server).statements;
    expect(ids(await statements.list(PA).toArray({ max: 2 }))).toEqual(["s1", "s2"]);
    expect(server.received).toHaveLength(1);
    expect(ids(await statements.list(PA).toArray({ max: 3 }))).toEqual(["s1", "s2", "s3"]);
    expect(server.received).toHaveLength(3);
    expect(ids(await statements.list(PA).toArray({ max: 0 }))).toEqual([]);
    expect(server.received).toHaveLength(3);
  });

  it("starts again from the first page on each iteration", async () => {
    const server = await serve(table);
    const paginator = clientFor(server).statements.list(PA);
    expect(await paginator.toArray()).toHaveLength(5);
    expect(await paginator.toArray()).toHaveLength(5);
    expect(server.urls()).toEqual([FIRST, "/p2", "/p3", FIRST, "/p2", "/p3"]);
  });
});

describe("pages() and prevHref", () => {
  it("gives the server's hrefs as sent, and the previous request's URL where the provider sends no prev", async () => {
    const server = await serve({
      [FIRST]: page(["s1"], { next: "/p2?x=%41" }),
      "/p2?x=%41": page(["s2"], { next: "p3" }),
      "/p3": page(["s3"], { prev: "/p2?x=%41&back=1" }),
    });
    const pages = [];
    for await (const p of clientFor(server).statements.list(PA).pages()) pages.push(p);
    expect(pages.map(({ nextHref, prevHref }) => ({ nextHref, prevHref }))).toEqual([
      { nextHref: "/p2?x=%41", prevHref: undefined },
      { nextHref: "p3", prevHref: `${server.origin}${FIRST}` },
      { nextHref: undefined, prevHref: "/p2?x=%41&back=1" },
    ]);
    expect(server.urls()).toEqual([FIRST, "/p2?x=%41", "/p3"]);
  });
});

describe("link safety", () => {
  it.each([
    ["an absolute URL on another origin", (foreign: string) => `${foreign}/statements/v2/P/A?page=2`],
    ["a protocol-relative URL", (foreign: string) => `//${new URL(foreign).host}/steal`],
    ["another scheme on the same host", (foreign: string) => `https://${new URL(foreign).host}/x`],
    ["a javascript: URL", () => "javascript:alert(1)"],
    ["a data: URL", () => "data:application/json,{}"],
    ["an ftp: URL", () => "ftp://127.0.0.1/x"],
  ])("refuses %s with FdxLinkError and never contacts it", async (_, makeHref) => {
    const foreign = await serve({ "/statements/v2/P/A?page=2": page(["stolen"]), "/steal": page(["stolen"]), "/x": page([]) });
    const href = makeHref(foreign.origin);
    const server = await serve({ [FIRST]: page(["s1"], { next: href }) });
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const statement of clientFor(server).statements.list(PA)) seen.push(statement.statementId);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxLinkError);
    expect((error as FdxLinkError).href).toBe(href);
    expect(seen).toEqual(["s1"]);
    expect(server.received).toHaveLength(1);
    expect(foreign.received).toHaveLength(0);
  });

  it("treats a next href that points back at the first page as a loop", async () => {
    const server = await serve({ [`${FIRST}?limit=1`]: page(["s1"], { next: `${FIRST}?limit=1` }) });
    const error = await clientFor(server)
      .statements.list({ ...PA, limit: 1 })
      .toArray()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxLinkError);
    expect((error as FdxLinkError).href).toBe(`${FIRST}?limit=1`);
    expect(server.received).toHaveLength(1);
  });

  it("stops an A → B → A cycle before requesting A again", async () => {
    const server = await serve({
      [FIRST]: page(["s1"], { next: "/a" }),
      "/a": page(["s2"], { next: "/b" }),
      "/b": page(["s3"], { next: "/a" }),
    });
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const statement of clientFor(server).statements.list(PA)) seen.push(statement.statementId);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxLinkError);
    expect(seen).toEqual(["s1", "s2", "s3"]);
    expect(server.urls()).toEqual([FIRST, "/a", "/b"]);
  });
});

describe("per-page requests", () => {
  it("applies timeoutMs to each page's wait for headers", async () => {
    const server = await startServer((req, res) => {
      if (req.url === FIRST) return json(res, 200, page(["s1"], { next: "/slow" }));
      // Never answers: only the client's timeout ends this request.
    });
    servers.push(server);
    // Long enough for the first page to be answered on a loaded machine; only the second never is.
    const client = createClient({ baseUrl: server.origin, token: "tkn", maxRetries: 0, timeoutMs: 1_000 });
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const statement of client.statements.list(PA)) seen.push(statement.statementId);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["s1"]);
    expect(error).toBeInstanceOf(FdxTimeoutError);
    expect(server.urls()).toEqual([FIRST, "/slow"]);
  });

  it("with prefetch, cancels the page requested ahead when the consumer stops", async () => {
    let aheadClosed!: () => void;
    const closed = new Promise<void>((resolve) => (aheadClosed = resolve));
    let aheadArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (aheadArrived = resolve));
    const server = await startServer((req, res) => {
      if (req.url === FIRST) return json(res, 200, page(["s1", "s2"], { next: "/held" }));
      aheadArrived();
      res.on("close", aheadClosed);
    });
    servers.push(server);
    for await (const statement of clientFor(server).statements.list(PA, { prefetch: 1 })) {
      expect(statement.statementId).toBe("s1");
      await arrived;
      break;
    }
    await closed;
    expect(server.urls()).toEqual([FIRST, "/held"]);
  });
});
