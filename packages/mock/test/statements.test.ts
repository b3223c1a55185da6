import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { createMockApp, type Statement, type StatementList } from "../src/index.js";
import { useMockServer } from "./helpers.js";

const ctx = useMockServer();
const PROVIDER = "sandbox-bank";
const listPath = (account: string, query = "") => `/products/statements/v2/${PROVIDER}/${account}${query}`;

async function page(pathOrHref: string): Promise<StatementList> {
  const response = await ctx.api(pathOrHref);
  expect(response.status, pathOrHref).toBe(200);
  return response.json();
}

/** Follows links.next.href, resolved against the host as the service says, to the end. */
async function allPages(first: string) {
  const pages: StatementList[] = [];
  let href: string | undefined = first;
  const origin = new URL(ctx.mock.productsUrl).origin;
  while (href) {
    const current = await page(new URL(href, origin).href);
    pages.push(current);
    href = current.links?.next?.href ?? undefined;
    expect(pages.length).toBeLessThan(100);
  }
  return pages;
}

async function statementsOf(account: string): Promise<Statement[]> {
  return (await page(listPath(account, "?limit=100"))).statements ?? [];
}

const MONTHLY = ["ACC-1001", "ACC-1002", "ACC-1003"];

describe("list", () => {
  it("seeds three accounts with 24 monthly statements each, the last on the fixed anchor date", async () => {
    expect(ctx.mock.seed.providerId).toBe(PROVIDER);
    expect(ctx.mock.seed.accounts.map((a) => a.accountId)).toEqual([...MONTHLY, "ACC-1004", "ACC-1005"]);
    for (const accountId of MONTHLY) {
      const statements = await statementsOf(accountId);
      expect(statements).toHaveLength(24);
      expect(statements[0]?.statementDate).toBe("2026-10-31T00:00:00.000Z");
      expect(statements[23]?.statementDate).toBe("2024-11-30T00:00:00.000Z");
    }
  });

  it("seeds a fourth account with 105 weekly statements over the last two years: three pages at the default limit of 50", async () => {
    const pages = await allPages(listPath("ACC-1004"));
    expect(pages.map((p) => p.statements?.length)).toEqual([50, 50, 5]);
    const dates = pages.flatMap((p) => (p.statements ?? []).map((s) => s.statementDate));
    expect(new Set(dates).size).toBe(105);
    expect(dates[0]).toBe("2026-10-31T00:00:00.000Z");
    expect(dates[1]).toBe("2026-10-24T00:00:00.000Z");
    expect(dates.at(-1)).toBe("2024-11-02T00:00:00.000Z");
    // Every statement of the two years fits in one range query.
    const twoYears = await allPages(listPath("ACC-1004", "?startTime=2024-10-31T00:00:00Z&endTime=2026-10-31T00:00:00Z&limit=100"));
    expect(twoYears.map((p) => p.statements?.length)).toEqual([100, 5]);
  });

  it("answers the account without statements with 404 and integer code 1108", async () => {
    const response = await ctx.api(listPath("ACC-1005"));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      code: 1108,
      message: "Statements not found for given Account",
      debugMessage: 'Account "ACC-1005" has no statements',
    });
  });

  it("answers an empty range of an account with statements with 200 and no statements, not 1108", async () => {
    const empty = await page(listPath("ACC-1001", "?startTime=2020-01-01T00:00:00Z&endTime=2020-12-31T00:00:00Z"));
    expect(empty).toEqual({ links: {}, statements: [] });
  });

  it("following next hrefs covers all 24 statements of an account exactly once", async () => {
    const pages = await allPages(listPath("ACC-1002", "?limit=5"));
    expect(pages).toHaveLength(5);
    const ids = pages.flatMap((p) => (p.statements ?? []).map((s) => s.statementId));
    expect(ids).toHaveLength(24);
    expect(new Set(ids).size).toBe(24);
    expect(pages.at(-1)?.links?.next).toBeUndefined();
  });

  it("sends hrefs relative to the host with an opaque cursor, and prev links after the first page", async () => {
    const [first, second] = await allPages(listPath("ACC-1001", "?limit=10"));
    const next = first?.links?.next?.href as string;
    expect(next).toMatch(/^\/products\/statements\/v2\/sandbox-bank\/ACC-1001\?cursor=[\w-]+$/);
    expect(first?.links?.prev).toBeUndefined();
    const prev = second?.links?.prev?.href as string;
    expect((await page(prev)).statements).toEqual(first?.statements);
  });

  it("filters by startTime and endTime and pages inside the range", async () => {
    const query = "?startTime=2025-01-01T00:00:00Z&endTime=2025-12-31T23:59:59Z&limit=4";
    const statements = (await allPages(listPath("ACC-1001", query))).flatMap((p) => p.statements ?? []);
    expect(statements.map((s) => s.statementDate?.slice(0, 7))).toEqual(
      ["12", "11", "10", "09", "08", "07", "06", "05", "04", "03", "02", "01"].map((m) => `2025-${m}`),
    );
  });

  it("accepts a two-year range ending on the anchor and returns everything", async () => {
    const query = "?startTime=2024-10-31T00:00:00Z&endTime=2026-10-31T00:00:00Z&limit=100";
    expect((await page(listPath("ACC-1003", query))).statements).toHaveLength(24);
  });

  it("honours offset and limit on the first call, and answers everything in one page without next", async () => {
    const all = await statementsOf("ACC-1001");
    const window = await page(listPath("ACC-1001", "?offset=3&limit=2"));
    expect(window.statements).toEqual(all.slice(3, 5));
    const one = await page(listPath("ACC-1001", "?limit=500"));
    expect(one.statements).toHaveLength(24);
    expect(one.links?.next).toBeUndefined();
  });

  it("answers a whole monthly account (24) in one page without a limit, and lowers limits above the maximum to 100", async () => {
    const whole = await page(listPath("ACC-1001"));
    expect(whole.statements).toHaveLength(24);
    expect(whole.links?.next).toBeUndefined();
    expect(await allPages(listPath("ACC-1001", "?limit=1000"))).toHaveLength(1);
    expect((await allPages(listPath("ACC-1004", "?limit=1000"))).map((p) => p.statements?.length)).toEqual([100, 5]);
  });

  it("accepts one of its own opaque cursors as the offset of a first call", async () => {
    const first = await page(listPath("ACC-1004", "?limit=10"));
    const cursor = new URL(first.links?.next?.href as string, "http://h").searchParams.get("cursor") as string;
    const byOffset = await page(listPath("ACC-1004", `?offset=${cursor}`));
    const byLink = await page(first.links?.next?.href as string);
    expect(byOffset).toEqual(byLink);
    expect(byOffset.statements?.[0]?.statementDate).toBe("2026-08-22T00:00:00.000Z"); // the 11th week back
    const bad = await ctx.api(listPath("ACC-1004", "?offset=abc"));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      code: 401,
      message: "Invalid Input",
      debugMessage: "offset must be a non-negative integer or a cursor of this sandbox",
    });
    const foreign = await ctx.api(listPath("ACC-1001", `?offset=${cursor}`));
    expect([foreign.status, (await foreign.json()).debugMessage]).toEqual([400, "The cursor belongs to another account"]);
  });

  it("shows statements in AVAILABLE, PROCESSING and FAILED, each with a GET download link", async () => {
    const statements = (await Promise.all(["ACC-1001", "ACC-1002", "ACC-1003", "ACC-1004"].map(statementsOf))).flat();
    expect(new Set(statements.map((s) => s.status))).toEqual(new Set(["AVAILABLE", "PROCESSING", "FAILED"]));
    for (const statement of statements) {
      expect(statement.links).toEqual([
        { href: expect.stringMatching(/^\/products\/statements\/v2\/sandbox-bank\//), action: "GET", rel: "download", types: ["application/pdf"] },
      ]);
    }
  });

  it("tokenized ids hold characters that are percent-encoded in the link href", async () => {
    const [statement] = await statementsOf("ACC-1001");
    expect(statement?.statementId).toMatch(/[:|/=]/);
    const href = statement?.links?.[0]?.href as string;
    expect(href.endsWith(`/${encodeURIComponent(statement?.statementId as string)}`)).toBe(true);
    expect(new URL(href, "http://h").pathname).toBe(href); // already a valid, normalised URL path
  });

  it.each([
    ["startTime after endTime", "?startTime=2026-01-01T00:00:00Z&endTime=2025-01-01T00:00:00Z", "startTime is after endTime"],
    ["a range over two years", "?startTime=2023-01-01T00:00:00Z&endTime=2026-01-01T00:00:00Z", "The range is longer than two years"],
  ])("answers %s with 400 and integer code 703 Invalid date range", async (_, query, debugMessage) => {
    const response = await ctx.api(listPath("ACC-1001", query));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 703, message: "Invalid date range", debugMessage });
  });

  it.each([
    ["an unparseable startTime", "?startTime=yesterday", "startTime"],
    ["an impossible endTime", "?endTime=2026-02-30T00:00:00Z", "endTime"],
  ])("answers %s with 400 and integer code 702 Invalid start or end date", async (_, query, name) => {
    const response = await ctx.api(listPath("ACC-1001", query));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 702, message: "Invalid start or end date", debugMessage: `${name} is not an ISO 8601 date-time` });
  });

  it.each([["?limit=0"], ["?limit=abc"], ["?offset=-1"], ["?cursor=not-a-cursor"]])("answers %s with 400 Invalid Input (integer code)", async (query) => {
    const response = await ctx.api(listPath("ACC-1001", query));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 401, message: "Invalid Input" });
  });

  it("refuses a cursor of one account on another", async () => {
    const next = (await page(listPath("ACC-1001", "?limit=2"))).links?.next?.href as string;
    const response = await ctx.api(next.replace("ACC-1001", "ACC-1002"));
    expect(response.status).toBe(400);
  });

  it("answers an unknown account or provider with 404 and integer code 701", async () => {
    for (const path of [listPath("ACC-9999"), `/products/statements/v2/other-bank/ACC-1001`]) {
      const response = await ctx.api(path);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: 701, message: "Account not found" });
    }
  });

  it("answers a statements version other than v2 with 501/1106", async () => {
    const response = await ctx.api(`/products/statements/v1/${PROVIDER}/ACC-1001`);
    expect(response.status).toBe(501);
  });
});

describe("download", () => {
  async function available(account = "ACC-1001") {
    const statement = (await statementsOf(account)).find((s) => s.status === "AVAILABLE") as Statement;
    return { statement, href: statement.links?.[0]?.href as string };
  }

  it("returns a real one-page PDF with Content-Type and Content-Length", async () => {
    const { href } = await available();
    const response = await ctx.api(href, { headers: { Accept: "application/pdf" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/pdf");
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(Number(response.headers.get("Content-Length"))).toBe(bytes.byteLength);
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
    const pdf = await PDFDocument.load(bytes);
    expect(pdf.getPageCount()).toBe(1);
  });

  it("serves the same bytes on every request and in every instance", async () => {
    const { href } = await available();
    const first = new Uint8Array(await (await ctx.api(href)).arrayBuffer());
    const second = new Uint8Array(await (await ctx.api(href, { headers: { Accept: "*/*" } })).arrayBuffer());
    expect(second).toEqual(first);
    const other = createMockApp();
    const request = new Request(new URL(href, other.baseUrl), { headers: { Authorization: `Bearer ${other.token}` } });
    expect(new Uint8Array(await (await other.fetch(request)).arrayBuffer())).toEqual(first);
  });

  it("returns a PDF for every available statement of every account with statements", async () => {
    for (const accountId of ["ACC-1001", "ACC-1002", "ACC-1003", "ACC-1004"]) {
      for (const statement of (await statementsOf(accountId)).filter((s) => s.status === "AVAILABLE").slice(0, 3)) {
        const response = await ctx.api(statement.links?.[0]?.href as string);
        expect(response.status).toBe(200);
        expect((await PDFDocument.load(await response.arrayBuffer())).getPageCount()).toBe(1);
      }
    }
  });

  it("answers an Accept naming no media type the statement offers with 406 and integer code 1203", async () => {
    const { href } = await available();
    for (const accept of ["image/png", "image/jpeg", "application/pdf;q=0, image/png", "text/html"]) {
      const response = await ctx.api(href, { headers: { Accept: accept } });
      expect(response.status).toBe(406);
      expect(await response.json()).toEqual({
        code: 1203,
        message: "Content Type not Supported",
        debugMessage: "Available media types: application/pdf",
      });
    }
  });

  it("answers a PROCESSING statement with 400 and integer code 1300 Statement is Processing", async () => {
    const statement = (await statementsOf("ACC-1003")).find((s) => s.status === "PROCESSING") as Statement;
    const response = await ctx.api(statement.links?.[0]?.href as string);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 1300, message: "Statement is Processing", debugMessage: "The statement document is still being produced" });
  });

  it("answers a FAILED statement with 404/1104: it has no document", async () => {
    const statement = (await statementsOf("ACC-1002")).find((s) => s.status === "FAILED") as Statement;
    const response = await ctx.api(statement.links?.[0]?.href as string);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      code: 1104,
      message: "Statement id not found for Account",
      debugMessage: "The statement is FAILED: no document was produced",
    });
  });

  it("answers an unknown statement with 404/1104 and an unknown account with 404/701 (integer codes)", async () => {
    const unknown = await ctx.api(listPath("ACC-1001", "/stmt%3Anope"));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ code: 1104, message: "Statement id not found for Account", debugMessage: 'Unknown statement "stmt:nope"' });
    const { statement } = await available();
    const wrongAccount = await ctx.api(listPath("ACC-9999", `/${encodeURIComponent(statement.statementId as string)}`));
    expect(wrongAccount.status).toBe(404);
    expect(await wrongAccount.json()).toMatchObject({ code: 701, message: "Account not found" });
    const emptyAccount = await ctx.api(listPath("ACC-1005", "/anything"));
    expect([emptyAccount.status, (await emptyAccount.json()).code]).toEqual([404, 1104]);
  });

  it("does not find a statement when its id is sent unencoded (the / splits the path)", async () => {
    const { statement } = await available();
    const response = await ctx.api(listPath("ACC-1001", `/${statement.statementId}`));
    expect(response.status).toBe(404);
  });
});
