// Pagination through msw: how pages end, what a bad page does, retries per page, prefetch.
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient, FdxAbortError, FdxLinkError, FdxResponseError, type StatementPage } from "../../src/index.js";
import { ids, page, statement } from "../support/statements.js";

const PRODUCTS = "https://products.test/fdx";
const FIRST = `${PRODUCTS}/statements/v2/P/A`;
const PA = { providerId: "P", accountId: "A" };

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const client = createClient({ baseUrl: "https://api.test", productsUrl: `${PRODUCTS}/`, token: "tkn", maxRetries: 1 });

/** Serves pages by URL (query included) and records each request URL. */
function pages(table: Record<string, Record<string, unknown> | (() => Response)>): string[] {
  const requested: string[] = [];
  server.use(
    http.get("https://products.test/*", ({ request }) => {
      requested.push(request.url);
      const entry = table[request.url];
      if (entry === undefined) return HttpResponse.json({ code: "701", message: "not found" }, { status: 404 });
      return typeof entry === "function" ? entry() : HttpResponse.json(entry);
    }),
  );
  return requested;
}

describe("the end of the list", () => {
  const endings: [string, Record<string, unknown>][] = [
    ["links absent", {}],
    ["links null", { links: null }],
    ["next absent", { links: { prev: { href: "/fdx/statements/v2/P/A?offset=0" } } }],
    ["next null", { links: { next: null } }],
    ["next {}", { links: { next: {} } }],
    ["next.href null", { links: { next: { href: null } } }],
    ['next.href ""', { links: { next: { href: "" } } }],
  ];
  it.each(endings)("comes with %s, after exactly one request", async (_, links) => {
    const requested = pages({ [FIRST]: { statements: [statement("s1"), statement("s2")], ...links } });
    const result: StatementPage[] = [];
    for await (const p of client.statements.list(PA).pages()) result.push(p);
    expect(result).toHaveLength(1);
    expect(ids(result[0]!.statements)).toEqual(["s1", "s2"]);
    expect(result[0]!.nextHref).toBeUndefined();
    expect(requested).toEqual([FIRST]);
  });

  it("treats a page without statements as empty and keeps following its next link", async () => {
    pages({ [FIRST]: { links: { next: { href: "/fdx/p2" } } }, "https://products.test/fdx/p2": page(["s1"]) });
    const result: StatementPage[] = [];
    for await (const p of client.statements.list(PA).pages()) result.push(p);
    expect(result.map((p) => ids(p.statements))).toEqual([[], ["s1"]]);
  });

  it("a statement iterator's return() ends it as the protocol says, and requests nothing more", async () => {
    const requested = pages({ [FIRST]: page(["s1", "s2"], { next: "/fdx/p2" }), "https://products.test/fdx/p2": page(["s3"]) });
    const iterator = client.statements.list(PA)[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ statementId: "s1" });
    expect(await iterator.return!()).toEqual({ done: true, value: undefined });
    expect(requested).toEqual([FIRST]);
  });
});

describe("a page that is not a statement list", () => {
  it.each([
    ["invalid JSON", () => new HttpResponse("{ nope", { headers: { "content-type": "application/json" } })],
    ["an empty body", () => new HttpResponse("", { status: 200 })],
    ["a JSON array", () => HttpResponse.json([statement("s1")])],
    ["statements that are not an array", () => HttpResponse.json({ statements: "s1" })],
    ["a numeric next href", () => HttpResponse.json({ statements: [], links: { next: { href: 2 } } })],
  ])("rejects %s with FdxResponseError", async (_, respond) => {
    pages({ [FIRST]: respond });
    const error = await client.statements
      .list(PA)
      .toArray()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxResponseError);
    expect((error as FdxResponseError).status).toBe(200);
  });

  it("with validateResponses, also rejects statements of the wrong shape (and passes them without)", async () => {
    pages({ [FIRST]: { statements: [{ statementId: 7, links: "x" }] } });
    const strict = createClient({ baseUrl: "https://api.test", productsUrl: PRODUCTS, token: "tkn", validateResponses: true });
    await expect(strict.statements.list(PA).toArray()).rejects.toBeInstanceOf(FdxResponseError);
    expect(await client.statements.list(PA).toArray()).toEqual([{ statementId: 7, links: "x" }]);
    pages({ [FIRST]: { statements: [null, statement("s1")] } });
    expect(await client.statements.list(PA).toArray()).toEqual([null, statement("s1")]);
  });
});

describe("per-page request options", () => {
  it("retries a failed later page on its own, without going back to the first", async () => {
    let failures = 0;
    const requested = pages({
      [FIRST]: page(["s1"], { next: "/fdx/p2" }),
      "https://products.test/fdx/p2": () => {
        if (failures++ === 0) return HttpResponse.json({ code: "503", message: "Scheduled Maintenance" }, { status: 503, headers: { "Retry-After": "0" } });
        return HttpResponse.json(page(["s2"]));
      },
    });
    expect(ids(await client.statements.list(PA).toArray())).toEqual(["s1", "s2"]);
    expect(requested).toEqual([FIRST, `${PRODUCTS}/p2`, `${PRODUCTS}/p2`]);
  });

  it("applies the caller's headers and signal to every page", async () => {
    const seen: (string | null)[] = [];
    server.use(
      http.get("https://products.test/*", ({ request }) => {
        seen.push(request.headers.get("x-trace"));
        return HttpResponse.json(request.url === FIRST ? page(["s1"], { next: "/fdx/p2" }) : page(["s2"], { next: "/fdx/p3" }));
      }),
    );
    const controller = new AbortController();
    const collected: unknown[] = [];
    const error = await (async () => {
      for await (const s of client.statements.list(PA, { headers: { "x-trace": "t1" }, signal: controller.signal })) {
        collected.push(s.statementId);
        if (collected.length === 2) controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(collected).toEqual(["s1", "s2"]);
    expect(error).toBeInstanceOf(FdxAbortError);
    expect(seen).toEqual(["t1", "t1"]);
  });
});

describe("prefetch", () => {
  it("requests the next page while the consumer works on the current one", async () => {
    let secondRequested!: () => void;
    const second = new Promise<void>((resolve) => (secondRequested = resolve));
    pages({
      [FIRST]: page(["s1"], { next: "/fdx/p2" }),
      "https://products.test/fdx/p2": () => {
        secondRequested();
        return HttpResponse.json(page(["s2"]));
      },
    });
    const iterator = client.statements.list(PA, { prefetch: 1 }).pages();
    const first = await iterator.next();
    expect(ids(first.value!.statements)).toEqual(["s1"]);
    // Resolves only if page 2 is requested before the consumer asks for it.
    await second;
    expect(ids((await iterator.next()).value!.statements)).toEqual(["s2"]);
    expect((await iterator.next()).done).toBe(true);
  });

  it("reports a prefetched page's failure only when the consumer reaches it", async () => {
    pages({ [FIRST]: page(["s1"], { next: "https://evil.test/x" }) });
    const iterator = client.statements.list(PA, { prefetch: 1 })[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.statementId).toBe("s1");
    await expect(iterator.next()).rejects.toBeInstanceOf(FdxLinkError);
  });

  it("rejects prefetch values other than 0 and 1", () => {
    expect(() => client.statements.list(PA, { prefetch: 2 as 1 })).toThrow(
      expect.objectContaining({ issues: [{ path: "prefetch", message: "must be 0 or 1" }] }),
    );
  });
});

describe("FDX page objects", () => {
  it("follows page.nextOffset with the first URL's other parameters as first sent, and never stops silently", async () => {
    const start = "2024-01-01T00:00:00.000Z";
    const first = `${FIRST}?startTime=${encodeURIComponent(start)}&limit=2`;
    const second = `${FIRST}?startTime=${encodeURIComponent(start)}&offset=c2&limit=2`;
    const third = `${FIRST}?startTime=${encodeURIComponent(start)}&offset=4&limit=2`;
    const requested = pages({
      [first]: { page: { nextOffset: "c2", totalElements: 5 }, statements: [statement("s1"), statement("s2")] },
      [second]: { page: { nextOffset: 4, totalElements: 5 }, statements: [statement("s3"), statement("s4")] },
      [third]: { page: { totalElements: 5 }, statements: [statement("s5")] },
    });
    const seenPages: StatementPage[] = [];
    for await (const p of client.statements.list({ ...PA, startTime: start, limit: 2 }).pages()) seenPages.push(p);
    expect(requested).toEqual([first, second, third]);
    expect(seenPages.flatMap((p) => ids(p.statements))).toEqual(["s1", "s2", "s3", "s4", "s5"]);
    // nextHref: the next request relative to the host; prevHref: the previous request, absolute.
    expect(seenPages.map((p) => p.nextHref)).toEqual([second.slice("https://products.test".length), third.slice("https://products.test".length), undefined]);
    expect(seenPages.map((p) => p.prevHref)).toEqual([undefined, first, second]);
  });

  it("links win over a page object when both are sent", async () => {
    const requested = pages({
      [FIRST]: { page: { nextOffset: "99" }, links: { next: { href: "/fdx/statements/v2/P/A?cursor=n" } }, statements: [statement("s1")] },
      [`${FIRST}?cursor=n`]: { statements: [statement("s2")] },
    });
    expect(ids(await client.statements.list(PA).toArray())).toEqual(["s1", "s2"]);
    expect(requested).toEqual([FIRST, `${FIRST}?cursor=n`]);
  });

  it("a nextOffset naming a page already requested is a loop", async () => {
    pages({
      [FIRST]: { page: { nextOffset: "2" }, statements: [statement("s1")] },
      [`${FIRST}?offset=2`]: { page: { nextOffset: "2" }, statements: [statement("s2")] },
    });
    const error = await client.statements
      .list(PA)
      .toArray()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxLinkError);
    expect((error as FdxLinkError).href).toBe("/fdx/statements/v2/P/A?offset=2");
    expect((error as FdxLinkError).message).toContain(`${FIRST}?offset=2 was already requested (a loop)`);
  });

  it("a page object that is not an object, or a nextOffset of another type, is an FdxResponseError", async () => {
    pages({ [FIRST]: { page: { nextOffset: true }, statements: [] } });
    const error = await client.statements
      .list(PA)
      .toArray()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxResponseError);
    expect((error as FdxResponseError).issues).toEqual([{ path: "page.nextOffset", message: "must be a string or a number" }]);
  });
});

describe("a provider that pages forever", () => {
  it("stops with FdxLinkError after 100 empty pages in a row that still link on", async () => {
    let served = 0;
    server.use(
      http.get("https://products.test/*", ({ request }) => {
        served++;
        const n = Number(new URL(request.url).searchParams.get("n") ?? 0);
        // One statement first, then empty pages, each linking to the next.
        return HttpResponse.json({ statements: n === 0 ? [statement("s1")] : [], links: { next: { href: `/fdx/statements/v2/P/A?n=${n + 1}` } } });
      }),
    );
    const seen: string[] = [];
    const error = await (async () => {
      for await (const s of client.statements.list(PA)) seen.push(s.statementId!);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxLinkError);
    expect((error as FdxLinkError).href).toBe("/fdx/statements/v2/P/A?n=101");
    expect((error as FdxLinkError).message).toContain("100 pages in a row brought no new statement");
    expect(seen).toEqual(["s1"]);
    expect(served).toBe(101);
  });

  it("stops as well when every page repeats the statements already yielded, each with a fresh next link", async () => {
    let served = 0;
    server.use(
      http.get("https://products.test/*", ({ request }) => {
        served++;
        const n = Number(new URL(request.url).searchParams.get("n") ?? 0);
        // The same statement on every page (and, every third page, none at all): never anything new.
        const statements = n % 3 === 2 ? [] : [statement("s1")];
        return HttpResponse.json({ statements, links: { next: { href: `/fdx/statements/v2/P/A?n=${n + 1}` } } });
      }),
    );
    const seen: string[] = [];
    const error = await (async () => {
      for await (const s of client.statements.list(PA)) seen.push(s.statementId!);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxLinkError);
    expect((error as FdxLinkError).href).toBe("/fdx/statements/v2/P/A?n=101");
    expect(served).toBe(101);
    // Never dropped: the repeats reach the consumer, as the server sent them.
    expect(seen.length).toBe(67);
  });

  it("a list whose last 100 pages are empty still ends where it ends: the last page links nowhere", async () => {
    server.use(
      http.get("https://products.test/*", ({ request }) => {
        const n = Number(new URL(request.url).searchParams.get("n") ?? 0);
        return HttpResponse.json({
          statements: n === 0 ? [statement("s1")] : [],
          links: n < 100 ? { next: { href: `/fdx/statements/v2/P/A?n=${n + 1}` } } : {},
        });
      }),
    );
    let pages = 0;
    for await (const _ of client.statements.list(PA).pages()) pages++;
    expect(pages).toBe(101);
  });

  it("knows a statement by its id: the same id with other content on every page is no new statement", async () => {
    let served = 0;
    server.use(
      http.get("https://products.test/*", ({ request }) => {
        served++;
        const n = Number(new URL(request.url).searchParams.get("n") ?? 0);
        // An ever-changing field (a provider stamping each answer) does not make s1 new; the end after page 150.
        const statements = [{ ...statement("s1"), description: `as of page ${n}` }];
        return HttpResponse.json({ statements, links: n < 150 ? { next: { href: `/fdx/statements/v2/P/A?n=${n + 1}` } } : {} });
      }),
    );
    const error = await client.statements
      .list(PA)
      .toArray()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxLinkError);
    expect((error as FdxLinkError).href).toBe("/fdx/statements/v2/P/A?n=101");
    expect(served).toBe(101);
  });

  it("tells statements without an id apart by their content, and keeps going while pages bring something new", async () => {
    server.use(
      http.get("https://products.test/*", ({ request }) => {
        const n = Number(new URL(request.url).searchParams.get("n") ?? 0);
        // A new id-less statement every 60th page, repeats in between; the end after page 300.
        const statements = [{ description: `doc ${Math.floor(n / 60)}` }];
        return HttpResponse.json({ statements, links: n < 300 ? { next: { href: `/fdx/statements/v2/P/A?n=${n + 1}` } } : {} });
      }),
    );
    let pages = 0;
    for await (const _ of client.statements.list(PA).pages()) pages++;
    expect(pages).toBe(301);
  });
});
