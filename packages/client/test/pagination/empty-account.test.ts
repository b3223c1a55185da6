// An account without statements: a first page answered 404 with FDX code 1108 is an empty list; any other
// 404 there, or a 1108 on a later page, still throws.
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient, FdxNotFoundError, type StatementPage } from "../../src/index.js";
import { ids, page } from "../support/statements.js";

const PRODUCTS = "https://products.test/fdx";
const FIRST = `${PRODUCTS}/statements/v2/P/A`;
const SECOND = `${PRODUCTS}/statements/v2/P/A?cursor=2`;
const PA = { providerId: "P", accountId: "A" };

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const client = createClient({ baseUrl: "https://api.test", productsUrl: PRODUCTS, token: "tkn", maxRetries: 1 });

const NO_STATEMENTS = { code: 1108, message: "Statements not found for given Account", debugMessage: "Account A has no statements" };
const NO_ACCOUNT = { code: 701, message: "Account not found", debugMessage: "Unknown account A" };

/** Serves answers by URL and records each request URL. */
function serve(table: Record<string, () => Response>): string[] {
  const requested: string[] = [];
  server.use(
    http.get("https://products.test/*", ({ request }) => {
      requested.push(request.url);
      return table[request.url]?.() ?? HttpResponse.json({ code: "NotFound", message: "unrouted" }, { status: 404 });
    }),
  );
  return requested;
}

const notFound = (body: Record<string, unknown>) => () => HttpResponse.json(body, { status: 404 });

describe("a first page answered 404 with FDX code 1108", () => {
  it("is an empty list to every way of reading it, after one request, with no retry", async () => {
    const requested = serve({ [FIRST]: notFound(NO_STATEMENTS) });
    const paginator = client.statements.list(PA);
    expect(await paginator.toArray()).toEqual([]);
    const pages: StatementPage[] = [];
    for await (const p of paginator.pages()) pages.push(p);
    expect(pages).toEqual([]);
    let yielded = 0;
    for await (const _ of paginator) yielded++;
    expect(yielded).toBe(0);
    // One request per iteration: a 404 is not retried.
    expect(requested).toEqual([FIRST, FIRST, FIRST]);
  });

  it("is empty whether the code is an integer or a string, with prefetch too", async () => {
    serve({ [FIRST]: notFound({ ...NO_STATEMENTS, code: "1108" }), [`${FIRST}?limit=10`]: notFound(NO_STATEMENTS) });
    expect(await client.statements.list(PA, { prefetch: 1 }).toArray()).toEqual([]);
    expect(await client.statements.list({ ...PA, limit: 10 }).toArray({ max: 5 })).toEqual([]);
  });
});

describe("what still throws", () => {
  it("a first page answered 404 with FDX code 701 (unknown account) throws FdxNotFoundError with the server's details", async () => {
    serve({ [FIRST]: notFound(NO_ACCOUNT) });
    const error = await client.statements
      .list(PA)
      .toArray()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxNotFoundError);
    expect(error).toMatchObject({ status: 404, code: "701", message: "Account not found", debugMessage: "Unknown account A" });
  });

  it("a 1108 on a later page throws FdxNotFoundError, after the first page's statements were yielded", async () => {
    const requested = serve({
      [FIRST]: () => HttpResponse.json(page(["s1", "s2"], { next: "/fdx/statements/v2/P/A?cursor=2" })),
      [SECOND]: notFound(NO_STATEMENTS),
    });
    const seen: (string | undefined)[] = [];
    const error = await (async () => {
      for await (const p of client.statements.list(PA).pages()) seen.push(...ids(p.statements));
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["s1", "s2"]);
    expect(error).toBeInstanceOf(FdxNotFoundError);
    expect(error).toMatchObject({ status: 404, code: "1108", message: "Statements not found for given Account" });
    expect(requested).toEqual([FIRST, SECOND]);
  });

  it("a later page's 1108 throws with prefetch as well", async () => {
    serve({ [FIRST]: () => HttpResponse.json(page(["s1"], { next: "/fdx/statements/v2/P/A?cursor=2" })), [SECOND]: notFound(NO_STATEMENTS) });
    const error = await client.statements
      .list(PA, { prefetch: 1 })
      .toArray()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 404, code: "1108" });
  });

  it("a code 1108 with another status than 404 is no empty list", async () => {
    serve({ [FIRST]: () => HttpResponse.json(NO_STATEMENTS, { status: 400 }) });
    const error = await client.statements
      .list(PA)
      .toArray()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: "1108" });
  });
});
