// providerRateLimits: a provider's own fixed-window limit on statement calls,
// against the real server and the same through createMockHandlers under msw,
// at the HTTP level (fetch, no SDK).
import { describe, expect, it } from "vitest";
import { createMockApp, type MockControls, type StatementList } from "../src/index.js";
import { useEitherMock } from "./helpers.js";

const ACCOUNT = "ACC-1004"; // 105 weekly statements
const TOO_MANY = { code: "1207", message: "Too Many Requests" };

const start = useEitherMock();

function call(mock: MockControls, url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has("Authorization")) headers.set("Authorization", `Bearer ${mock.token}`);
  return fetch(new URL(url, mock.productsUrl), { ...init, headers });
}

const list = (mock: MockControls, providerId = "sandbox-bank", query = "?limit=40") =>
  call(mock, `${mock.productsUrl}/statements/v2/${providerId}/${ACCOUNT}${query}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The status, Retry-After and body of a refused call, to compare at once. */
async function refusal(response: Response) {
  return { status: response.status, retryAfter: response.headers.get("Retry-After"), body: await response.json() };
}

describe.each(["server", "msw"] as const)("providerRateLimits (%s)", (kind) => {
  it("serves `limit` statement calls in a window — a list, its next page, a download — then 429/1207 with the seconds left as Retry-After", async () => {
    const mock = await start(kind, { providerRateLimits: { "sandbox-bank": { limit: 3, windowMs: 60_000 } } });
    const first = await list(mock);
    expect(first.status).toBe(200);
    const page = (await first.json()) as StatementList;
    expect((await call(mock, page.links?.next?.href ?? "missing next link")).status).toBe(200);
    const download = await call(mock, page.statements?.[0]?.links?.[0]?.href ?? "missing statement link");
    expect([download.status, download.headers.get("Content-Type")]).toEqual([200, "application/pdf"]);

    const limited = await list(mock);
    const { retryAfter, ...rest } = await refusal(limited);
    expect(rest).toEqual({ status: 429, body: TOO_MANY });
    // A 60 s window that began a moment ago: about 60 s left, in whole seconds.
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(55);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    // Other paths than statements are not the provider's: they still answer.
    expect((await call(mock, `${mock.baseUrl}/consents/v1/consent-active-1`)).status).toBe(200);
    expect(mock.rateLimitStats()).toEqual({ "sandbox-bank": { requests: 4, limited: 1 } });
  });

  it("serves again once the window is over, with Retry-After at least 1 for a window shorter than a second", async () => {
    const mock = await start(kind, { providerRateLimits: { "sandbox-bank": { limit: 2, windowMs: 300 } } });
    expect((await list(mock)).status).toBe(200);
    expect((await list(mock)).status).toBe(200);
    expect(await refusal(await list(mock))).toEqual({ status: 429, retryAfter: "1", body: TOO_MANY });
    await sleep(350);
    expect((await list(mock)).status).toBe(200);
    expect((await list(mock)).status).toBe(200);
    expect((await list(mock)).status).toBe(429);
    expect(mock.rateLimitStats()).toEqual({ "sandbox-bank": { requests: 6, limited: 2 } });
  });

  it("counts each provider on its own: one provider past its limit leaves the others served", async () => {
    const mock = await start(kind, {
      providerRateLimits: { "sandbox-bank": { limit: 1, windowMs: 60_000 }, "other-bank": { limit: 2, windowMs: 60_000 } },
    });
    expect((await list(mock)).status).toBe(200);
    expect((await list(mock)).status).toBe(429);
    // other-bank has no such account (404 701) but keeps its own count: two answers, then 429.
    const unknown = await list(mock, "other-bank");
    expect([unknown.status, (await unknown.json()).code]).toEqual([404, 701]);
    expect((await list(mock, "other-bank")).status).toBe(404);
    expect((await list(mock, "other-bank")).status).toBe(429);
    // A provider with no limit is never refused.
    for (let i = 0; i < 4; i++) expect((await list(mock, "third-bank")).status).toBe(404);
    expect(mock.rateLimitStats()).toEqual({
      "sandbox-bank": { requests: 2, limited: 1 },
      "other-bank": { requests: 3, limited: 1 },
    });
  });

  it("reset() clears the windows and the counts", async () => {
    const mock = await start(kind, { providerRateLimits: { "sandbox-bank": { limit: 1, windowMs: 60_000 } } });
    expect((await list(mock)).status).toBe(200);
    expect((await list(mock)).status).toBe(429);
    mock.reset();
    expect(mock.rateLimitStats()).toEqual({ "sandbox-bank": { requests: 0, limited: 0 } });
    expect((await list(mock)).status).toBe(200);
    expect(mock.rateLimitStats()).toEqual({ "sandbox-bank": { requests: 1, limited: 0 } });
  });

  it("does not count documents fetched from the documents origin, only the statement GET that redirects there", async () => {
    const mock = await start(kind, { documents: "redirect", providerRateLimits: { "sandbox-bank": { limit: 2, windowMs: 60_000 } } });
    const page = (await (await list(mock)).json()) as StatementList;
    const redirect = await call(mock, page.statements?.[0]?.links?.[0]?.href ?? "missing statement link", { redirect: "manual" });
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get("Location") ?? "";
    expect(location.startsWith(`${mock.documentsUrl}/`)).toBe(true);
    // The object store answers however often it is asked (it refuses Authorization, so none is sent).
    for (let i = 0; i < 3; i++) expect((await fetch(location)).status).toBe(200);
    expect(mock.rateLimitStats()).toEqual({ "sandbox-bank": { requests: 2, limited: 0 } });
    expect((await list(mock)).status).toBe(429);
  });

  it("does not count calls refused before the provider would serve them (wrong token)", async () => {
    const mock = await start(kind, { providerRateLimits: { "sandbox-bank": { limit: 1, windowMs: 60_000 } } });
    const refused = await call(mock, `${mock.productsUrl}/statements/v2/sandbox-bank/${ACCOUNT}`, { headers: { Authorization: "Bearer wrong" } });
    expect(refused.status).toBe(401);
    expect(mock.rateLimitStats()).toEqual({ "sandbox-bank": { requests: 0, limited: 0 } });
    expect((await list(mock)).status).toBe(200);
  });
});

describe("providerRateLimits options", () => {
  it("rateLimitStats() is empty without the option", () => {
    expect(createMockApp().rateLimitStats()).toEqual({});
  });

  it("throws a clear error for a bad limit or window", () => {
    expect(() => createMockApp({ providerRateLimits: { "sandbox-bank": { limit: 0, windowMs: 1000 } } })).toThrow(
      new RangeError('providerRateLimits["sandbox-bank"].limit must be an integer >= 1, got 0'),
    );
    expect(() => createMockApp({ providerRateLimits: { "sandbox-bank": { limit: 1.5, windowMs: 1000 } } })).toThrow(RangeError);
    expect(() => createMockApp({ providerRateLimits: { "sandbox-bank": { limit: 5, windowMs: -1 } } })).toThrow(
      new RangeError('providerRateLimits["sandbox-bank"].windowMs must be a finite number > 0, got -1'),
    );
    expect(() => createMockApp({ providerRateLimits: { "sandbox-bank": { limit: 5 } } as never })).toThrow(
      /windowMs must be a finite number > 0, got undefined/,
    );
    expect(() => createMockApp({ providerRateLimits: [] as never })).toThrow(TypeError);
    expect(() => createMockApp({ providerRateLimits: { "": { limit: 1, windowMs: 1000 } } })).toThrow(/empty provider id/);
  });
});
