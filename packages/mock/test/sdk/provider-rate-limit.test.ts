// The SDK against a provider's own rate limit (providerRateLimits), on the
// real server and under msw: the 429 reaches the caller as FdxRateLimitError
// with its Retry-After, and the default retries wait it out.
import { createClient, FdxRateLimitError } from "@fdxkit/client";
import { describe, expect, it } from "vitest";
import type { MockControls } from "../../src/index.js";
import { useEitherMock } from "../helpers.js";

const ACCOUNT = "ACC-1004"; // 105 weekly statements: 3 pages of 50

const start = useEitherMock();

/** A client on the mock with its default retries unless told, recording when each attempt went and how it was answered. */
function client(mock: MockControls, maxRetries?: number) {
  const attempts: { at: number; url: string; status: number }[] = [];
  const sdk = createClient({
    baseUrl: mock.baseUrl,
    productsUrl: mock.productsUrl,
    token: mock.token,
    ...(maxRetries === undefined ? {} : { maxRetries }),
    fetch: async (request: Request) => {
      const at = performance.now();
      // Looked up at call time, so msw's patched fetch is used when it is listening.
      const response = await globalThis.fetch(request);
      attempts.push({ at, url: request.url, status: response.status });
      return response;
    },
  });
  return { sdk, attempts };
}

describe.each(["server", "msw"] as const)("SDK on a provider's rate limit (%s)", (kind) => {
  it("past the limit is FdxRateLimitError 429/1207 with retryAfterMs from the seconds left in the window", async () => {
    const mock = await start(kind, { providerRateLimits: { "sandbox-bank": { limit: 1, windowMs: 30_000 } } });
    const { sdk, attempts } = client(mock, 0);
    const error = await sdk.statements
      .list({ providerId: "sandbox-bank", accountId: ACCOUNT })
      .toArray()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxRateLimitError);
    const limited = error as FdxRateLimitError;
    expect(limited).toMatchObject({ status: 429, code: "1207", message: "Too Many Requests", method: "GET" });
    expect(limited.url).toBe(attempts[1]?.url);
    expect(new URL(limited.url).pathname).toBe(`/products/statements/v2/sandbox-bank/${ACCOUNT}`);
    // 30 s window begun a moment ago: Retry-After is about 30 (whole seconds), retryAfterMs the same in ms.
    expect(limited.retryAfterMs).toBe(Number(limited.headers["retry-after"]) * 1000);
    expect(limited.retryAfterMs).toBeGreaterThanOrEqual(25_000);
    expect(limited.retryAfterMs).toBeLessThanOrEqual(30_000);
    expect(attempts.map((a) => a.status)).toEqual([200, 429]);
    expect(mock.rateLimitStats()).toEqual({ "sandbox-bank": { requests: 2, limited: 1 } });
  });

  it("with the default retries, waits out each Retry-After and gets every statement", async () => {
    const mock = await start(kind, { providerRateLimits: { "sandbox-bank": { limit: 1, windowMs: 1000 } } });
    const { sdk, attempts } = client(mock);
    const statements = await sdk.statements.list({ providerId: "sandbox-bank", accountId: ACCOUNT }).toArray();
    expect(statements).toHaveLength(105);
    // One page per one-second window: each next page is refused once (Retry-After: 1) and sent again.
    expect(attempts.map((a) => a.status)).toEqual([200, 429, 200, 429, 200]);
    for (const refused of [1, 3]) {
      const [before, after] = [attempts[refused], attempts[refused + 1]];
      expect(after?.url).toBe(before?.url);
      // The retry waited the whole second Retry-After asked for, not a shorter backoff.
      expect((after?.at ?? 0) - (before?.at ?? 0)).toBeGreaterThanOrEqual(990);
    }
    expect(mock.rateLimitStats()).toEqual({ "sandbox-bank": { requests: 5, limited: 2 } });
  });

  it("counts downloads too: a download past the limit is retried after Retry-After and arrives", async () => {
    const mock = await start(kind, { providerRateLimits: { "sandbox-bank": { limit: 1, windowMs: 1000 } } });
    const { sdk, attempts } = client(mock);
    const [statement] = await sdk.statements.list({ providerId: "sandbox-bank", accountId: ACCOUNT, limit: 1 }).toArray({ max: 1 });
    const document = await sdk.statements.download(statement!);
    expect(document.contentType).toBe("application/pdf");
    expect((await document.arrayBuffer()).byteLength).toBeGreaterThan(100);
    const list = `/products/statements/v2/sandbox-bank/${ACCOUNT}`;
    const href = `${list}/${encodeURIComponent(statement?.statementId ?? "missing statement")}`;
    expect(attempts.map((a) => [a.status, new URL(a.url).pathname])).toEqual([
      [200, list],
      [429, href],
      [200, href],
    ]);
    expect(mock.rateLimitStats()).toEqual({ "sandbox-bank": { requests: 3, limited: 1 } });
  });
});
