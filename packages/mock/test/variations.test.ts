// Provider variations, each against the real server and the same through
// createMockHandlers under msw, at the HTTP level (fetch, no SDK).
import { setupServer } from "msw/node";
import { PDFDocument } from "pdf-lib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMockApp, createMockHandlers, DEFAULT_DOCUMENTS_URL, startMockServer, type MockOptions, type StatementList } from "../src/index.js";
import { DOCUMENT_URL_TTL_MS } from "../src/documents.js";

const ACCOUNT = "ACC-1004"; // 105 weekly statements
const FIRST_QUERY = "?startTime=2024-10-31T00:00:00Z&endTime=2026-10-31T00:00:00Z&limit=40";

interface Instance {
  readonly kind: "server" | "msw";
  baseUrl: string;
  productsUrl: string;
  documentsUrl: string | undefined;
  token: string;
  readonly faultCount: number;
  reset(): void;
  close(): Promise<void>;
}

let open: Instance | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

/** A mock with these options: the real server, or msw handlers in setupServer (one at a time). */
async function start(kind: "server" | "msw", options: MockOptions = {}): Promise<Instance> {
  if (kind === "server") {
    const mock = await startMockServer(options);
    open = Object.assign(mock, { kind } as const);
    return open;
  }
  const handlers = createMockHandlers(options);
  const server = setupServer(...handlers);
  server.listen({ onUnhandledRequest: "error" });
  const { mock } = handlers;
  open = {
    kind,
    baseUrl: mock.baseUrl,
    productsUrl: mock.productsUrl,
    documentsUrl: mock.documentsUrl,
    token: mock.token,
    get faultCount() {
      return mock.faultCount;
    },
    reset: () => mock.reset(),
    async close() {
      server.close();
      await mock.dispose();
    },
  };
  return open;
}

function call(mock: Instance, url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has("Authorization")) headers.set("Authorization", `Bearer ${mock.token}`);
  return fetch(new URL(url, mock.productsUrl), { ...init, headers });
}

async function page(mock: Instance, url: string): Promise<StatementList> {
  const response = await call(mock, url);
  expect(response.status, url).toBe(200);
  return response.json();
}

const listUrl = (mock: Instance, query = "") => `${mock.productsUrl}/statements/v2/sandbox-bank/${ACCOUNT}${query}`;

describe.each(["server", "msw"] as const)("variations (%s)", (kind) => {
  describe('pagination: "page"', () => {
    it("pages with FDX page objects and no links; the first URL with offset=nextOffset walks every statement once", async () => {
      const mock = await start(kind, { pagination: "page" });
      const first = listUrl(mock, FIRST_QUERY);
      const pages: StatementList[] = [];
      let url: string | undefined = first;
      while (url) {
        const current = await page(mock, url);
        pages.push(current);
        const next = current.page?.nextOffset;
        if (next === undefined) break;
        const nextUrl = new URL(first);
        nextUrl.searchParams.set("offset", String(next));
        url = nextUrl.href;
        expect(pages.length).toBeLessThan(10);
      }
      expect(pages.map((p) => p.statements?.length)).toEqual([40, 40, 25]);
      for (const p of pages) {
        expect(p).not.toHaveProperty("links");
        expect(p.page?.totalElements).toBe(105);
      }
      expect(typeof pages[0]?.page?.nextOffset).toBe("string"); // opaque, like the real service's
      expect(pages[0]?.page?.prevOffset).toBeUndefined();
      expect(pages[1]?.page?.prevOffset).toBeDefined();
      expect(pages[2]?.page).toEqual({ totalElements: 105, prevOffset: expect.any(String) });
      const ids = pages.flatMap((p) => (p.statements ?? []).map((s) => s.statementId));
      expect(new Set(ids).size).toBe(105);
    });

    it("counts only the range asked for in totalElements, and sends no page object past the end", async () => {
      const mock = await start(kind, { pagination: "page", prevLinks: false });
      const one = await page(mock, `${mock.productsUrl}/statements/v2/sandbox-bank/ACC-1001?startTime=2026-01-01T00:00:00Z&limit=5`);
      expect(one.page).toEqual({ totalElements: 10, nextOffset: expect.any(String) });
      const second = new URL(`${mock.productsUrl}/statements/v2/sandbox-bank/ACC-1001?startTime=2026-01-01T00:00:00Z&limit=5`);
      second.searchParams.set("offset", one.page?.nextOffset as string);
      expect((await page(mock, second.href)).page).toEqual({ totalElements: 10 }); // no prevOffset with prevLinks: false
    });
  });

  describe("prevLinks: false", () => {
    it("sends links.next but never links.prev", async () => {
      const mock = await start(kind, { prevLinks: false });
      let href: string | undefined = listUrl(mock, "?limit=30");
      const pages: StatementList[] = [];
      while (href) {
        const current = await page(mock, href);
        pages.push(current);
        href = current.links?.next?.href ?? undefined;
      }
      expect(pages).toHaveLength(4);
      for (const p of pages) expect(p.links).not.toHaveProperty("prev");
      expect(pages.flatMap((p) => p.statements ?? [])).toHaveLength(105);
    });
  });

  describe('documents: "redirect"', () => {
    async function firstDocument(mock: Instance) {
      const list = await page(mock, listUrl(mock, "?limit=2"));
      return list.statements?.[0]?.links?.[0]?.href as string;
    }

    it("answers a statement GET with 302 to a signed URL on another origin, which serves the PDF without a token", async () => {
      const mock = await start(kind, { documents: "redirect" });
      expect(mock.documentsUrl).toBeDefined();
      expect(new URL(mock.documentsUrl as string).origin).not.toBe(new URL(mock.productsUrl).origin);
      if (kind === "msw") expect(mock.documentsUrl).toBe(DEFAULT_DOCUMENTS_URL);

      const redirect = await call(mock, await firstDocument(mock), { redirect: "manual", headers: { Accept: "application/pdf" } });
      expect(redirect.status).toBe(302);
      const location = redirect.headers.get("Location") as string;
      expect(location.startsWith(`${mock.documentsUrl}/`)).toBe(true);
      expect(location).toMatch(/[?&]signature=[\w-]+/);
      expect(location).toMatch(/[?&]expires=\d+/);

      const document = await fetch(location);
      expect(document.status).toBe(200);
      expect(document.headers.get("Content-Type")).toBe("application/pdf");
      expect((await PDFDocument.load(await document.arrayBuffer())).getPageCount()).toBe(1);
    });

    it("refuses a document request carrying Authorization with 400, as object stores do", async () => {
      const mock = await start(kind, { documents: "redirect" });
      const redirect = await call(mock, await firstDocument(mock), { redirect: "manual" });
      const refused = await fetch(redirect.headers.get("Location") as string, { headers: { Authorization: `Bearer ${mock.token}` } });
      expect(refused.status).toBe(400);
      expect(refused.headers.get("Content-Type")).toBe("application/xml");
      expect(await refused.text()).toContain("<Code>InvalidArgument</Code>");
    });

    it("follows the redirect with fetch, which drops Authorization on the hop to the other origin", async () => {
      const mock = await start(kind, { documents: "redirect" });
      const followed = await call(mock, await firstDocument(mock));
      expect(followed.status).toBe(200);
      expect(followed.redirected).toBe(true);
      expect(followed.url.startsWith(`${mock.documentsUrl}/`)).toBe(true);
      expect(new TextDecoder().decode(new Uint8Array(await followed.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
    });

    it("serves a signed URL for its one statement only, unaltered and unexpired", async () => {
      const mock = await start(kind, { documents: "redirect" });
      const list = await page(mock, listUrl(mock, "?limit=2"));
      const [a, b] = await Promise.all(
        (list.statements ?? []).map(async (s) => (await call(mock, s.links?.[0]?.href as string, { redirect: "manual" })).headers.get("Location") as string),
      );
      const urlA = new URL(a as string);
      const urlB = new URL(b as string);
      // b's signature on a's path, a missing signature, a changed expiry: all refused.
      const swapped = `${urlA.origin}${urlA.pathname}?expires=${urlB.searchParams.get("expires")}&signature=${urlB.searchParams.get("signature")}`;
      const unsigned = `${urlA.origin}${urlA.pathname}`;
      const extended = `${urlA.origin}${urlA.pathname}?expires=${Number(urlA.searchParams.get("expires")) + 1}&signature=${urlA.searchParams.get("signature")}`;
      for (const [url, code] of [
        [swapped, "SignatureDoesNotMatch"],
        [unsigned, "AccessDenied"],
        [extended, "SignatureDoesNotMatch"],
      ] as const) {
        const response = await fetch(url);
        expect(response.status, url).toBe(403);
        expect(await response.text()).toContain(`<Code>${code}</Code>`);
      }
      expect((await fetch(urlA, { method: "DELETE" })).status).toBe(405);

      const now = Date.now();
      vi.spyOn(Date, "now").mockReturnValue(now + DOCUMENT_URL_TTL_MS + 1);
      try {
        const expired = await fetch(urlA);
        expect(expired.status).toBe(403);
        expect(await expired.text()).toContain("Request has expired");
      } finally {
        vi.restoreAllMocks();
      }
    });

    it("still answers the statement errors before redirecting (406, 1300)", async () => {
      const mock = await start(kind, { documents: "redirect" });
      const href = await firstDocument(mock);
      const notAcceptable = await call(mock, href, { redirect: "manual", headers: { Accept: "image/png" } });
      expect([notAcceptable.status, (await notAcceptable.json()).code]).toEqual([406, 1203]);
      const processing = (await page(mock, `${mock.productsUrl}/statements/v2/sandbox-bank/ACC-1003?limit=1`)).statements?.[0];
      const refused = await call(mock, processing?.links?.[0]?.href as string, { redirect: "manual" });
      expect([refused.status, (await refused.json()).code]).toEqual([400, 1300]);
    });
  });

  describe("latencyMs", () => {
    it("answers as usual with a latency, and the rate limit still counts every request", async () => {
      const mock = await start(kind, { latencyMs: 5, rateLimit: { limit: 2, windowMs: 60_000 } });
      const statuses = await Promise.all([1, 2, 3].map(() => call(mock, `${mock.baseUrl}/consents/v1/consent-active-1`).then((r) => r.status)));
      expect(statuses.sort()).toEqual([200, 200, 429]);
    });
  });

  describe("faults", () => {
    async function statuses(mock: Instance, count: number): Promise<(number | "reset")[]> {
      const seen: (number | "reset")[] = [];
      for (let i = 0; i < count; i++) {
        try {
          const response = await call(mock, `${mock.baseUrl}/consents/v1/consent-active-1`);
          seen.push(response.status);
          if (response.status === 429) expect(response.headers.get("Retry-After")).toBe("1");
          if (response.status !== 200) {
            expect(await response.json()).toEqual(
              response.status === 503 ? { code: "503", message: "Scheduled Maintenance" } : { code: "1207", message: "Too Many Requests" },
            );
          }
        } catch (error) {
          expect((error as Error & { cause?: { code?: string } }).cause?.code).toBe("ECONNRESET");
          seen.push("reset");
        }
      }
      return seen;
    }

    it("gives the same sequence of faults for the same seed, and counts them", async () => {
      const first = await statuses(await start(kind, { faults: { rate: 0.4, seed: 42 } }), 60);
      const count = (open as Instance).faultCount;
      await open?.close();
      const again = await statuses(await start(kind, { faults: { rate: 0.4, seed: 42 } }), 60);
      await open?.close();
      const other = await statuses(await start(kind, { faults: { rate: 0.4, seed: 43 } }), 60);

      expect(again).toEqual(first);
      expect(other).not.toEqual(first);
      expect(count).toBe(first.filter((s) => s !== 200).length);
      expect(count).toBeGreaterThan(10);
      expect(count).toBeLessThan(40);
      const kinds = new Set(first.filter((s) => s !== 200));
      expect(kinds).toEqual(kind === "server" ? new Set([503, 429, "reset"]) : new Set([503, 429]));
    });

    it("starts the sequence over on reset()", async () => {
      const mock = await start(kind, { faults: { rate: 0.5, seed: 7 } });
      const first = await statuses(mock, 20);
      expect(mock.faultCount).toBeGreaterThan(0);
      mock.reset();
      expect(mock.faultCount).toBe(0);
      expect(await statuses(mock, 20)).toEqual(first);
    });

    it("faults every request at rate 1 and none at rate 0", async () => {
      expect((await statuses(await start(kind, { faults: { rate: 1, seed: 1 } }), 10)).filter((s) => s === 200)).toEqual([]);
      expect((open as Instance).faultCount).toBe(10);
      await open?.close();
      expect(await statuses(await start(kind, { faults: { rate: 0 } }), 10)).toEqual(Array(10).fill(200));
      expect((open as Instance).faultCount).toBe(0);
    });
  });
});

describe("options are checked when the mock is created", () => {
  it.each([
    [{ faults: { rate: 1.5 } }, "faults.rate must be a number from 0 to 1, got 1.5"],
    [{ faults: { rate: 0.1, seed: 1.5 } }, "faults.seed must be an integer, got 1.5"],
    [{ latencyMs: -1 }, "latencyMs must be a finite number >= 0, got -1"],
    [{ pagination: "cursor" }, 'pagination must be "links" or "page", got "cursor"'],
    [{ documents: "inline" }, 'documents must be "direct" or "redirect", got "inline"'],
    [{ prevLinks: "no" }, "prevLinks must be a boolean"],
  ])("refuses %j", async (options, message) => {
    expect(() => createMockApp(options as MockOptions)).toThrow(message);
    await expect(startMockServer(options as MockOptions)).rejects.toThrow(message);
  });

  it("refuses a documentsUrl on the origin of the API", () => {
    expect(() => createMockApp({ documents: "redirect", documentsUrl: "https://sandbox.fdxkit.test/docs" })).toThrow(
      "documentsUrl must be another origin than baseUrl and productsUrl",
    );
  });

  it("starts no document origin without documents: redirect", async () => {
    const mock = await startMockServer();
    open = Object.assign(mock, { kind: "server" } as const);
    expect(mock.documentsUrl).toBeUndefined();
    expect(createMockApp().documentsUrl).toBeUndefined();
  });
});

describe("latency, measured on the app with fake timers", () => {
  afterEach(() => vi.useRealTimers());

  it("holds every answer for latencyMs, preflights and errors included", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const app = createMockApp({ latencyMs: 100 });
    const answered: number[] = [];
    for (const init of [{}, { method: "OPTIONS" }]) {
      void app.fetch(new Request(`${app.baseUrl}/consents/v1/consent-active-1`, init)).then((r) => answered.push(r.status));
    }
    await vi.advanceTimersByTimeAsync(99);
    expect(answered).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await vi.waitFor(() => expect(answered.sort()).toEqual([204, 401]));
  });
});
