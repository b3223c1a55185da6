// The SDK on the provider variations, against the real server and under msw:
// FDX page objects, no prev links, faults survived by retries, latency with a
// rate limit, and documents behind a redirect.
import { FdxRateLimitError, type Statement } from "@fdxkit/client";
import { beforeAll, describe, expect, it } from "vitest";
import { startMockServer } from "../../src/index.js";
import { isPdf, sdkClient } from "./helpers.js";
import { useEitherMock } from "../helpers.js";

const ACCOUNT = "ACC-1004"; // 105 weekly statements

const start = useEitherMock();

const ids = (statements: Statement[]) => statements.map((s) => s.statementId);

/** What a run without any variation returns: the reference for the others (taken before msw patches fetch). */
let reference: Statement[];
beforeAll(async () => {
  const mock = await startMockServer();
  try {
    reference = await sdkClient(mock).client.statements.list({ providerId: mock.seed.providerId, accountId: ACCOUNT }).toArray();
  } finally {
    await mock.close();
  }
  expect(reference).toHaveLength(105);
});

describe.each(["server", "msw"] as const)("SDK on provider variations (%s)", (kind) => {
  it('pagination: "page" — FDX page objects are followed to the last statement, none dropped', async () => {
    const mock = await start(kind, { pagination: "page" });
    const { client, requests } = sdkClient(mock);
    const pages = [];
    for await (const page of client.statements.list({ providerId: mock.seed.providerId, accountId: ACCOUNT, limit: 40 }).pages()) pages.push(page);
    expect(pages.map((p) => p.statements.length)).toEqual([40, 40, 25]);
    expect(ids(pages.flatMap((p) => p.statements))).toEqual(ids(reference));
    // Each next request is the first URL with the provider's offset; nextHref names it relative to the host.
    const origin = new URL(mock.productsUrl).origin;
    for (let i = 1; i < requests.length; i++) {
      const url = new URL(requests[i]!.url);
      expect(url.searchParams.get("limit")).toBe("40");
      expect(url.searchParams.get("offset")).not.toBeNull();
      expect(`${origin}${pages[i - 1]?.nextHref}`).toBe(requests[i]?.url);
    }
    expect(pages.at(-1)?.nextHref).toBeUndefined();
  });

  it("prevLinks: false — prevHref falls back to the URL of the previous page, and every statement arrives", async () => {
    const mock = await start(kind, { prevLinks: false });
    const { client, requests } = sdkClient(mock);
    const pages = [];
    for await (const page of client.statements.list({ providerId: mock.seed.providerId, accountId: ACCOUNT, limit: 30 }).pages()) pages.push(page);
    expect(pages.map((p) => p.statements.length)).toEqual([30, 30, 30, 15]);
    expect(pages[0]?.prevHref).toBeUndefined();
    for (let i = 1; i < pages.length; i++) expect(pages[i]?.prevHref).toBe(requests[i - 1]?.url);
    expect(ids(pages.flatMap((p) => p.statements))).toEqual(ids(reference));
  });

  it("faults at rate 0.2 — a full walk with downloads returns the same statements as without faults", async () => {
    const mock = await start(kind, { faults: { rate: 0.2, seed: 2026 } });
    const { client } = sdkClient(mock, { maxRetries: 8 });
    const statements = await client.statements.list({ providerId: mock.seed.providerId, accountId: ACCOUNT, limit: 20 }).toArray();
    expect(ids(statements)).toEqual(ids(reference));
    for (const statement of statements.slice(0, 6)) {
      const document = await client.statements.download(statement);
      expect(isPdf(new Uint8Array(await document.arrayBuffer()))).toBe(true);
    }
    expect(mock.faultCount).toBeGreaterThan(0);
  });

  it("latencyMs with a rate limit — the SDK waits out each 429 and gets every page", async () => {
    const mock = await start(kind, { latencyMs: 20, rateLimit: { limit: 4, windowMs: 1000 } });
    const { client, requests } = sdkClient(mock, { maxRetries: 4 });
    const statements = await client.statements.list({ providerId: mock.seed.providerId, accountId: ACCOUNT, limit: 15 }).toArray();
    expect(ids(statements)).toEqual(ids(reference));
    // 7 pages, at most 4 requests a second: some were refused and sent again.
    expect(requests.length).toBeGreaterThan(7);
  });

  it("latencyMs with a rate limit and no retries — the 429 reaches the caller with its Retry-After", async () => {
    const mock = await start(kind, { latencyMs: 20, rateLimit: { limit: 1, windowMs: 60_000 } });
    const { client } = sdkClient(mock, { maxRetries: 0 });
    const error = await client.statements
      .list({ providerId: mock.seed.providerId, accountId: ACCOUNT, limit: 10 })
      .toArray()
      .catch((e: unknown) => e);
    // The first page passes, the second is limited.
    expect(error).toBeInstanceOf(FdxRateLimitError);
    expect(error).toMatchObject({ status: 429, code: "1207" });
    expect((error as FdxRateLimitError).retryAfterMs).toBeGreaterThanOrEqual(1000);
  });

  it('documents: "redirect" — a download follows the 302 to the document origin, which refuses any Authorization', async () => {
    const mock = await start(kind, { documents: "redirect" });
    const { client } = sdkClient(mock);
    const [statement] = await client.statements.list({ providerId: mock.seed.providerId, accountId: ACCOUNT }).toArray({ max: 1 });
    const document = await client.statements.download(statement!);
    expect(document.contentType).toBe("application/pdf");
    expect(isPdf(new Uint8Array(await document.arrayBuffer()))).toBe(true);
  });
});
