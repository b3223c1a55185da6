// The client in Chromium against the real @fdxkit/mock HTTP server, across
// origins: the page is served by vitest, the API by the mock on 127.0.0.1,
// so every call goes through CORS (preflights, exposed headers) like a web
// app talking to the sandbox.
import { expect, inject, it } from "vitest";
import {
  createClient,
  FdxAbortError,
  FdxErrorCode,
  FdxMaintenanceError,
  FdxNotFoundError,
  FdxNotImplementedError,
  FdxRateLimitError,
  FdxUnauthorizedError,
  FdxValidationError,
  type Statement,
} from "../src/index.js";
import type {} from "./provided.js";

const mock = inject("fdxMock");
const client = createClient({ baseUrl: mock.baseUrl, productsUrl: mock.productsUrl, token: mock.token, maxRetries: 0 });
const providerId = mock.providerId;
const accountId = mock.accountIds[0]!;
// The seeded history: 24 monthly statements ending October 2026.
const range = { startTime: "2024-11-01T00:00:00Z", endTime: "2026-11-01T00:00:00Z" };

it("talks to the mock across origins", () => {
  expect(new URL(mock.baseUrl).origin).not.toBe(location.origin);
  expect(new URL(mock.baseUrl).hostname).toBe("127.0.0.1");
});

it("for await walks every page of the account's statements", async () => {
  const seen: Statement[] = [];
  for await (const s of client.statements.list({ providerId, accountId, ...range, limit: 5 })) seen.push(s);
  expect(seen).toHaveLength(24);
  expect(new Set(seen.map((s) => s.statementId)).size).toBe(24);

  const pageSizes: number[] = [];
  for await (const page of client.statements.list({ providerId, accountId, ...range, limit: 5 }).pages()) {
    pageSizes.push(page.statements.length);
  }
  expect(pageSizes).toEqual([5, 5, 5, 5, 4]);
});

it("downloads a statement PDF as a Blob whose bytes are a PDF", async () => {
  const [first] = await client.statements.list({ providerId, accountId, ...range, limit: 1 }).toArray({ max: 1 });
  const document = await client.statements.download(first!);
  expect(document.contentType).toMatch(/^application\/pdf/);
  const blob = await document.blob();
  expect(blob.size).toBeGreaterThan(100);
  // Content-Length is readable cross-origin: the page can show a size or progress.
  expect(document.contentLength).toBe(blob.size);
  const head = new TextDecoder().decode(await blob.slice(0, 5).arrayBuffer());
  expect(head).toBe("%PDF-");
});

it("reads consents and maintenance notices", async () => {
  const consent = await client.consents.get(mock.consentIds[0]!);
  expect(consent.id).toBe(mock.consentIds[0]);
  const notice = await client.maintenance.get(mock.maintenanceIds[0]!);
  expect(notice).toMatchObject({ category: "MAINTENANCE" });
});

it("maps the mock's FDX errors: wrong token, unknown consent, unknown account, unsupported version", async () => {
  const wrongToken = createClient({ baseUrl: mock.baseUrl, token: "not-the-token", maxRetries: 0 });
  await expect(wrongToken.consents.get(mock.consentIds[0]!)).rejects.toSatisfy(
    (e) => e instanceof FdxUnauthorizedError && e.status === 401 && e.code === FdxErrorCode.Unauthorized,
  );
  const unknown = await client.consents.get("no-such-consent").catch((e: unknown) => e);
  expect(unknown).toBeInstanceOf(FdxNotFoundError);
  expect((unknown as FdxNotFoundError).message).toBeTruthy();

  const noAccount = await client.statements
    .list({ providerId, accountId: "ACC-NOPE", ...range })
    .toArray()
    .catch((e: unknown) => e);
  expect(noAccount).toBeInstanceOf(FdxNotFoundError);
  expect((noAccount as FdxNotFoundError).code).toBe("701");

  const v2 = createClient({ baseUrl: mock.baseUrl, token: mock.token, maxRetries: 0, versions: { notifications: "v2" } });
  await expect(v2.subscriptions.list()).rejects.toSatisfy((e) => e instanceof FdxNotImplementedError && e.code === FdxErrorCode.VersionNotSupported);
});

it("503 Scheduled Maintenance and 429 with a Retry-After the page can read", async () => {
  const down = createClient({ baseUrl: mock.maintenanceBaseUrl, token: mock.token, maxRetries: 0 });
  await expect(down.consents.get(mock.consentIds[0]!)).rejects.toSatisfy(
    (e) => e instanceof FdxMaintenanceError && e.status === 503 && e.code === FdxErrorCode.ScheduledMaintenance,
  );

  const limited = createClient({ baseUrl: mock.rateLimitedBaseUrl, token: mock.token, maxRetries: 0 });
  await limited.consents.get(mock.consentIds[0]!); // the one allowed request
  const error = await limited.consents.get(mock.consentIds[0]!).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(FdxRateLimitError);
  expect((error as FdxRateLimitError).code).toBe(FdxErrorCode.TooManyRequests);
  // Only readable because the mock exposes Retry-After to cross-origin pages.
  expect((error as FdxRateLimitError).retryAfterMs).toBeGreaterThan(0);
});

it("input checks and abort need no server round trip", async () => {
  // The contract lets list() throw at once or at the first iteration: accept both.
  const backwards = async () => client.statements.list({ providerId, accountId, startTime: "2026-01-01", endTime: "2025-01-01" }).toArray();
  await expect(backwards()).rejects.toBeInstanceOf(FdxValidationError);
  const controller = new AbortController();
  controller.abort();
  await expect(client.consents.get(mock.consentIds[0]!, { signal: controller.signal })).rejects.toBeInstanceOf(FdxAbortError);
});
