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

describe("list", () => {
  it("seeds three accounts with 24 monthly statements each, the last on the fixed anchor date", async () => {
    expect(ctx.mock.seed.providerId).toBe(PROVIDER);
    expect(ctx.mock.seed.accounts).toHaveLength(3);
    for (const { accountId } of ctx.mock.seed.accounts) {
      const statements = await statementsOf(accountId);
      expect(statements).toHaveLength(24);
      expect(statements[0]?.statementDate).toBe("2026-10-31T00:00:00.000Z");
      expect(statements[23]?.statementDate).toBe("2024-11-30T00:00:00.000Z");
    }
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

  it("answers a whole account (24) in one page without a limit, and accepts limits above the maximum", async () => {
    const whole = await page(listPath("ACC-1001"));
    expect(whole.statements).toHaveLength(24);
    expect(whole.links?.next).toBeUndefined();
    expect(await allPages(listPath("ACC-1001", "?limit=1000"))).toHaveLength(1);
  });

  it("shows statements in AVAILABLE, PROCESSING and FAILED, each with a GET download link", async () => {
    const statements = (await Promise.all(ctx.mock.seed.accounts.map((a) => statementsOf(a.accountId)))).flat();
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
    ["startTime after endTime", "?startTime=2026-01-01T00:00:00Z&endTime=2025-01-01T00:00:00Z"],
    ["a range over two years", "?startTime=2023-01-01T00:00:00Z&endTime=2026-01-01T00:00:00Z"],
    ["an unparseable startTime", "?startTime=yesterday"],
    ["an impossible endTime", "?endTime=2026-02-30T00:00:00Z"],
  ])("answers %s with 400/703", async (_, query) => {
    const response = await ctx.api(listPath("ACC-1001", query));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: "703", message: "Invalid date range" });
  });

  it.each([["?limit=0"], ["?limit=abc"], ["?offset=-1"], ["?cursor=not-a-cursor"]])("answers %s with 400 Invalid Input", async (query) => {
    const response = await ctx.api(listPath("ACC-1001", query));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: "401", message: "Invalid Input" });
  });

  it("refuses a cursor of one account on another", async () => {
    const next = (await page(listPath("ACC-1001", "?limit=2"))).links?.next?.href as string;
    const response = await ctx.api(next.replace("ACC-1001", "ACC-1002"));
    expect(response.status).toBe(400);
  });

  it("answers an unknown account or provider with 404/701", async () => {
    for (const path of [listPath("ACC-9999"), `/products/statements/v2/other-bank/ACC-1001`]) {
      const response = await ctx.api(path);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: "701", message: "Account not found" });
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

  it("returns a PDF for every available statement of every account", async () => {
    for (const { accountId } of ctx.mock.seed.accounts) {
      for (const statement of (await statementsOf(accountId)).filter((s) => s.status === "AVAILABLE").slice(0, 3)) {
        const response = await ctx.api(statement.links?.[0]?.href as string);
        expect(response.status).toBe(200);
        expect((await PDFDocument.load(await response.arrayBuffer())).getPageCount()).toBe(1);
      }
    }
  });

  it("answers image media types with 406 and an FDX body", async () => {
    const { href } = await available();
    for (const accept of ["image/png", "image/jpeg", "application/pdf;q=0, image/png"]) {
      const response = await ctx.api(href, { headers: { Accept: accept } });
      expect(response.status).toBe(406);
      expect(await response.json()).toMatchObject({ code: "406", message: "Not Acceptable" });
    }
  });

  it("answers PROCESSING and FAILED statements with 404/1108 'Statement not available'", async () => {
    const statements = (await Promise.all(ctx.mock.seed.accounts.map((a) => statementsOf(a.accountId)))).flat();
    for (const status of ["PROCESSING", "FAILED"]) {
      const statement = statements.find((s) => s.status === status) as Statement;
      const response = await ctx.api(statement.links?.[0]?.href as string);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: "1108", message: "Statement not available" });
    }
  });

  it("answers an unknown statement with 404/1108 and an unknown account with 404/701", async () => {
    const unknown = await ctx.api(listPath("ACC-1001", "/stmt%3Anope"));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: "1108", message: "Statement not found" });
    const { statement } = await available();
    const wrongAccount = await ctx.api(listPath("ACC-9999", `/${encodeURIComponent(statement.statementId as string)}`));
    expect(wrongAccount.status).toBe(404);
    expect(await wrongAccount.json()).toMatchObject({ code: "701" });
  });

  it("does not find a statement when its id is sent unencoded (the / splits the path)", async () => {
    const { statement } = await available();
    const response = await ctx.api(listPath("ACC-1001", `/${statement.statementId}`));
    expect(response.status).toBe(404);
  });
});
