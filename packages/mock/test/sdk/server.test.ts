// The SDK end to end against the real HTTP server (startMockServer): every client method,
// once without and once with response validation (the mock is spec-conformant, so both pass).
import { mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { FdxBadRequestError, type Statement } from "@fdxkit/client";
import { saveStatement } from "@fdxkit/client/node";
import { isConsentNotification, isMaintenanceNotification } from "@fdxkit/client/webhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/index.js";
import { isPdf, sdkClient, startReceiver } from "./helpers.js";

let mock: MockServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let tempDir: string;

beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
  receiver = await startReceiver();
  tempDir = await mkdtemp(path.join(tmpdir(), "fdxkit-sdk-e2e-"));
});
afterEach(async () => {
  await mock.idle();
  mock.reset();
});
afterAll(async () => {
  await mock?.close();
  await receiver?.close();
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

describe.each([
  { validateResponses: false, label: "plain" },
  { validateResponses: true, label: "validateResponses: true" },
])("SDK against startMockServer ($label)", ({ validateResponses }) => {
  const setup = () => sdkClient(mock, { validateResponses });

  describe("subscriptions", () => {
    it("create, list, get, update and delete round-trip", async () => {
      const { client } = setup();
      const created = await client.subscriptions.create({
        category: "MAINTENANCE",
        type: "PLANNED_OUTAGE",
        callbackUrl: "https://hooks.example.com/fdx",
        callbackEmail: "ops@example.com",
      });
      expect(created.subscriptionId).toMatch(UUID);
      expect(created).toMatchObject({
        category: "MAINTENANCE",
        type: "PLANNED_OUTAGE",
        callbackUrl: "https://hooks.example.com/fdx",
        callbackEmail: "ops@example.com",
      });
      const other = await client.subscriptions.create({ category: "CONSENT", type: "CONSENT_UPDATED", callbackUrl: receiver.url });

      // list: oldest first, exactly what was created
      expect(await client.subscriptions.list()).toEqual([created, other]);
      expect(await client.subscriptions.get(created.subscriptionId)).toEqual(created);

      const updated = await client.subscriptions.update(created.subscriptionId, {
        callbackUrl: "https://hooks.example.com/v2",
        effectiveDate: "2026-12-01",
      });
      expect(updated).toMatchObject({
        subscriptionId: created.subscriptionId,
        category: "MAINTENANCE",
        type: "PLANNED_OUTAGE",
        callbackUrl: "https://hooks.example.com/v2",
        effectiveDate: "2026-12-01",
        callbackEmail: "ops@example.com",
      });
      expect(await client.subscriptions.get(created.subscriptionId)).toEqual(updated);

      await expect(client.subscriptions.delete(created.subscriptionId)).resolves.toBeUndefined();
      expect(await client.subscriptions.list()).toEqual([other]);
      const gone = await client.subscriptions.get(created.subscriptionId).catch((e: unknown) => e);
      expect(gone).toBeInstanceOf(FdxBadRequestError);
      expect(gone).toMatchObject({ status: 400, code: "401", debugMessage: "subscription id was not found" });
    });

    it("an empty list is an empty array", async () => {
      const { client } = setup();
      expect(await client.subscriptions.list()).toEqual([]);
    });
  });

  describe("sendTestEvent delivers to a real webhook receiver, whose hint reads back through the API", () => {
    const cases = [
      { category: "MAINTENANCE", type: "PLANNED_OUTAGE" },
      { category: "MAINTENANCE", type: "SERVICE" },
      { category: "CONSENT", type: "CONSENT_REVOKED" },
      { category: "CONSENT", type: "CONSENT_UPDATED" },
    ] as const;

    it.each(cases)("$category / $type", async ({ category, type }) => {
      const { client } = setup();
      const subscription = await client.subscriptions.create({ category, type, callbackUrl: receiver.url });
      const before = receiver.received.length;
      const sent = await client.subscriptions.sendTestEvent(subscription.subscriptionId);
      expect(sent).toMatchObject({ category, type });

      const delivered = await receiver.nth(before + 1);
      // What arrived over HTTP, parsed by createWebhookHandler, is what the API said it sent.
      expect(delivered).toEqual(sent);
      expect(delivered.notificationId).toBe(sent.notificationId);
      await mock.idle();
      expect(mock.deliveries()).toEqual([
        expect.objectContaining({ subscriptionId: subscription.subscriptionId, url: receiver.url, status: "delivered", responseStatus: 200 }),
      ]);

      const payloadId = delivered.notificationPayload.id;
      expect(payloadId).toEqual(expect.any(String));
      if (category === "MAINTENANCE") {
        expect(delivered.notificationPayload.idType).toBe("MAINTENANCE");
        expect(isMaintenanceNotification(delivered)).toBe(true);
        expect(isConsentNotification(delivered)).toBe(false);
        const notice = await client.maintenance.get(payloadId!);
        expect(notice).toEqual(mock.seed.maintenance.find((m) => m.type === type));
      } else {
        expect(delivered.notificationPayload.idType).toBe("CONSENT");
        expect(isConsentNotification(delivered)).toBe(true);
        expect(isMaintenanceNotification(delivered)).toBe(false);
        const consent = await client.consents.get(payloadId!);
        expect(consent.status).toBe(type === "CONSENT_REVOKED" ? "REVOKED" : "ACTIVE");
        expect(consent).toEqual(mock.seed.consents.find((c) => c.id === payloadId));
      }
    });
  });

  it("maintenance.get returns each seeded notice", async () => {
    const { client } = setup();
    expect(mock.seed.maintenance.length).toBeGreaterThan(0);
    for (const notice of mock.seed.maintenance) {
      expect(await client.maintenance.get(notice.id!)).toEqual(notice);
    }
  });

  it.each(["ACTIVE", "EXPIRED", "REVOKED"])("consents.get returns the seeded %s consent", async (status) => {
    const { client } = setup();
    const seeded = mock.seed.consents.find((c) => c.status === status);
    expect(seeded).toBeDefined();
    const consent = await client.consents.get(seeded!.id!);
    expect(consent).toEqual(seeded);
    expect(consent.status).toBe(status);
  });

  describe("statements", () => {
    it("walks every page of an account: 24 statements, newest first, prev/next links consistent", async () => {
      const { client, requests } = setup();
      const { providerId } = mock.seed;
      const pages = [];
      for await (const page of client.statements.list({ providerId, accountId: "ACC-1001", limit: 5 }).pages()) pages.push(page);

      expect(pages.map((p) => p.statements.length)).toEqual([5, 5, 5, 5, 4]);
      expect(requests).toHaveLength(5); // one request per page, none after the last
      const all = pages.flatMap((p) => p.statements);
      expect(all).toHaveLength(24);
      expect(new Set(all.map((s) => s.statementId)).size).toBe(24);
      expect(all.every((s) => s.accountId === "ACC-1001" && s.status === "AVAILABLE")).toBe(true);
      const dates = all.map((s) => s.statementDate?.slice(0, 10));
      expect(dates[0]).toBe("2026-10-31");
      expect(dates.at(-1)).toBe("2024-11-30");
      expect([...dates].sort().reverse()).toEqual(dates);

      // First page: no previous; last page: no next; the others have both, as host-relative hrefs.
      expect(pages[0]!.prevHref).toBeUndefined();
      expect(pages.at(-1)!.nextHref).toBeUndefined();
      for (const page of pages.slice(0, -1)) expect(page.nextHref).toMatch(/^\/products\/statements\/v2\/sandbox-bank\/ACC-1001\?cursor=/);
      for (const page of pages.slice(1)) expect(page.prevHref).toMatch(/^\/products\/statements\/v2\/sandbox-bank\/ACC-1001\?cursor=/);
      // Page n's nextHref is the URL requested for page n+1, byte for byte.
      for (let n = 0; n < pages.length - 1; n++) {
        expect(requests[n + 1]!.url).toBe(new URL(mock.productsUrl).origin + pages[n]!.nextHref);
      }
      // Following a page's prevHref gives the page before it.
      for (let n = 1; n < pages.length; n++) {
        const response = await fetch(new URL(pages[n]!.prevHref!, mock.productsUrl), { headers: { Authorization: `Bearer ${mock.token}` } });
        const body = (await response.json()) as { statements: Statement[] };
        expect(body.statements.map((s) => s.statementId)).toEqual(pages[n - 1]!.statements.map((s) => s.statementId));
      }
    });

    it("iterates statements directly and reports the seeded statuses", async () => {
      const { client } = setup();
      const statuses: Record<string, string | undefined> = {};
      let count = 0;
      for await (const statement of client.statements.list({ providerId: mock.seed.providerId, accountId: "ACC-1003", limit: 10 })) {
        count++;
        if (statement.status !== "AVAILABLE") statuses[statement.statementDate!.slice(0, 7)] = statement.status;
      }
      expect(count).toBe(24);
      expect(statuses).toEqual({ "2026-10": "PROCESSING", "2025-08": "FAILED" });
    });

    it("honours startTime and endTime (inclusive) on the first request", async () => {
      const { client, requests } = setup();
      const year = await client.statements
        .list({ providerId: mock.seed.providerId, accountId: "ACC-1002", startTime: new Date("2025-01-01T00:00:00Z"), endTime: "2025-12-31T00:00:00Z" })
        .toArray();
      expect(year.map((s) => s.statementDate?.slice(0, 7))).toEqual([
        "2025-12",
        "2025-11",
        "2025-10",
        "2025-09",
        "2025-08",
        "2025-07",
        "2025-06",
        "2025-05",
        "2025-04",
        "2025-03",
        "2025-02",
        "2025-01",
      ]);
      expect(year.find((s) => s.statementDate?.startsWith("2025-03"))?.status).toBe("FAILED");
      const first = new URL(requests[0]!.url);
      expect(first.searchParams.get("startTime")).toBe("2025-01-01T00:00:00.000Z");
      expect(first.searchParams.get("endTime")).toBe("2025-12-31T00:00:00.000Z");
    });

    it("toArray({ max }) stops at max and requests no further page", async () => {
      const { client, requests } = setup();
      const params = { providerId: mock.seed.providerId, accountId: "ACC-1001", limit: 5 };
      const seven = await client.statements.list(params).toArray({ max: 7 });
      expect(seven).toHaveLength(7);
      expect(requests).toHaveLength(2);
      const all = await client.statements.list(params).toArray({ max: 500 });
      expect(all).toHaveLength(24);
      expect(seven).toEqual(all.slice(0, 7));
    });

    it("downloads a PDF through the statement's link with its tokenized id", async () => {
      const { client, requests } = setup();
      const [statement] = await client.statements.list({ providerId: mock.seed.providerId, accountId: "ACC-1001" }).toArray({ max: 1 });
      expect(statement!.statementId).toMatch(/[:|/=]/); // needs percent-encoding in a path
      const href = statement!.links![0]!.href;
      expect(href).toBe(`/products/statements/v2/sandbox-bank/ACC-1001/${encodeURIComponent(statement!.statementId!)}`);

      const document = await client.statements.download(statement!);
      expect(requests.at(-1)!.url).toBe(new URL(mock.productsUrl).origin + href);
      expect(document.contentType).toBe("application/pdf");
      const bytes = new Uint8Array(await document.arrayBuffer());
      expect(Buffer.from(bytes.subarray(0, 5)).toString("latin1")).toBe("%PDF-");
      expect(isPdf(bytes)).toBe(true);
      expect(document.contentLength).toBe(bytes.byteLength);

      // The same document by href and by ids (the SDK percent-encodes the tokenized id itself).
      const byHref = new Uint8Array(await (await client.statements.download(href)).arrayBuffer());
      const byIds = await client.statements.download({ providerId: mock.seed.providerId, accountId: "ACC-1001", statementId: statement!.statementId! });
      expect(requests.at(-1)!.url).toBe(new URL(mock.productsUrl).origin + href);
      expect(byHref).toEqual(bytes);
      expect(new Uint8Array(await (await byIds.blob()).arrayBuffer())).toEqual(bytes);
    });

    it("saveStatement streams a download to a file", async () => {
      const { client } = setup();
      const statements = await client.statements.list({ providerId: mock.seed.providerId, accountId: "ACC-1002" }).toArray({ max: 3 });
      const dir = await mkdtemp(path.join(tempDir, "save-"));
      for (const statement of statements) {
        const file = path.join(dir, `${statement.statementDate!.slice(0, 10)}.pdf`);
        const saved = await saveStatement(await client.statements.download(statement), file);
        expect(saved.path).toBe(path.resolve(file));
        expect((await stat(file)).size).toBe(saved.bytes);
        expect(isPdf(await readFile(file))).toBe(true);
      }
      // Only the three PDFs: no temporary files left behind.
      expect((await readdir(dir)).sort()).toEqual(["2026-08-31.pdf", "2026-09-30.pdf", "2026-10-31.pdf"]);
    });

    it("a PROCESSING statement is a FdxBadRequestError with code 1300 (the integer normalised)", async () => {
      const { client } = setup();
      const statements = await client.statements.list({ providerId: mock.seed.providerId, accountId: "ACC-1003" }).toArray({ max: 1 });
      expect(statements[0]!.status).toBe("PROCESSING");
      const error = await client.statements.download(statements[0]!).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FdxBadRequestError);
      expect(error).toMatchObject({ status: 400, code: "1300", message: "Statement is Processing" });
    });

    it("an account without statements (the mock's 404 with code 1108) lists as empty, in one request", async () => {
      const { client, requests } = setup();
      const before = requests.length;
      expect(await client.statements.list({ providerId: mock.seed.providerId, accountId: "ACC-1005" }).toArray()).toEqual([]);
      expect(requests.length - before).toBe(1);
    });

    it("all 105 statements of the weekly account arrive through the default page size", async () => {
      const { client, requests } = setup();
      const before = requests.length;
      const all = await client.statements.list({ providerId: mock.seed.providerId, accountId: "ACC-1004" }).toArray();
      expect(all).toHaveLength(105);
      expect(new Set(all.map((s) => s.statementId)).size).toBe(105);
      expect(requests.length - before).toBe(3);
    });
  });
});
