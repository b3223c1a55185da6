// The SDK against createMockHandlers() in msw's setupServer: no socket, the SDK's default fetch is msw's.
import { createClient, FdxBadRequestError, FdxNotFoundError, FdxUnauthorizedError, type Notification } from "@fdxkit/client";
import { createWebhookHandler } from "@fdxkit/client/webhooks";
import { http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMockHandlers } from "../../src/index.js";
import { isPdf, sdkClient } from "./helpers.js";

const handlers = createMockHandlers();
const mock = handlers.mock;
const received: Notification[] = [];
// The user's webhook route, mounted in msw: the SDK's own handler answers the mock's delivery.
const webhook = createWebhookHandler({
  onNotification: async (notification) => {
    received.push(notification);
  },
});
const server = setupServer(
  ...handlers,
  http.post("https://receiver.example.com/fdx-webhooks", ({ request }) => webhook(request)),
);

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(async () => {
  await mock.idle();
  mock.reset();
  received.length = 0;
  server.resetHandlers();
});
afterAll(async () => {
  server.close();
  await mock.dispose();
});

describe("SDK against createMockHandlers() with msw setupServer", () => {
  it("uses the default fetch, which msw intercepts", async () => {
    // No custom fetch: the client looks up globalThis.fetch at call time.
    const client = createClient({ baseUrl: mock.baseUrl, productsUrl: mock.productsUrl, token: mock.token, validateResponses: true });
    expect(mock.baseUrl).toBe("https://sandbox.fdxkit.test");
    expect(await client.subscriptions.list()).toEqual([]);
  });

  it("creates, lists, gets, sends a test event to an msw receiver, and deletes", async () => {
    const { client } = sdkClient(mock, { validateResponses: true });
    const created = await client.subscriptions.create({
      category: "CONSENT",
      type: "CONSENT_REVOKED",
      callbackUrl: "https://receiver.example.com/fdx-webhooks",
    });
    expect(await client.subscriptions.list()).toEqual([created]);
    expect(await client.subscriptions.get(created.subscriptionId)).toEqual(created);

    const sent = await client.subscriptions.sendTestEvent(created.subscriptionId);
    await mock.idle();
    expect(received).toEqual([sent]);
    expect(mock.deliveries()).toEqual([expect.objectContaining({ status: "delivered", responseStatus: 200 })]);
    const consent = await client.consents.get(sent.notificationPayload.id!);
    expect(consent.status).toBe("REVOKED");

    await client.subscriptions.delete(created.subscriptionId);
    expect(await client.subscriptions.list()).toEqual([]);
    const error = await client.subscriptions.delete(created.subscriptionId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxBadRequestError);
    expect(error).toMatchObject({ status: 400, code: "401", debugMessage: "subscription id was not found" });
  });

  it.each(["consent-active-1", "consent-expired-1", "consent-revoked-1"])("consents.get(%s) matches the seed", async (id) => {
    const { client } = sdkClient(mock, { validateResponses: true });
    expect(await client.consents.get(id)).toEqual(mock.seed.consents.find((c) => c.id === id));
  });

  it("pages all statements of an account and downloads one to an ArrayBuffer", async () => {
    const { client, requests } = sdkClient(mock, { validateResponses: true });
    const sizes: number[] = [];
    const statements = [];
    for await (const page of client.statements.list({ providerId: mock.seed.providerId, accountId: "ACC-1002", limit: 10 }).pages()) {
      sizes.push(page.statements.length);
      statements.push(...page.statements);
    }
    expect(sizes).toEqual([10, 10, 4]);
    expect(new Set(statements.map((s) => s.statementId)).size).toBe(24);
    expect(requests.every((r) => r.url.startsWith("https://sandbox.fdxkit.test/products/statements/v2/sandbox-bank/ACC-1002"))).toBe(true);

    const available = statements.find((s) => s.status === "AVAILABLE")!;
    const document = await client.statements.download(available);
    expect(document.contentType).toBe("application/pdf");
    const bytes = new Uint8Array(await document.arrayBuffer());
    expect(isPdf(bytes)).toBe(true);
    expect(document.contentLength).toBe(bytes.byteLength);

    const failed = statements.find((s) => s.status === "FAILED")!;
    expect(failed.statementDate?.slice(0, 7)).toBe("2025-03");
    await expect(client.statements.download(failed)).rejects.toBeInstanceOf(FdxNotFoundError);
  });

  it("surfaces error rows: wrong token and unknown maintenance id", async () => {
    const { client } = sdkClient(mock, { token: "wrong" });
    await expect(client.consents.get("consent-active-1")).rejects.toSatisfy((e) => e instanceof FdxUnauthorizedError && e.code === "1205" && e.status === 401);
    const ok = sdkClient(mock).client;
    await expect(ok.maintenance.get("nope")).rejects.toSatisfy((e) => e instanceof FdxNotFoundError && e.code === "NotFound");
  });

  it("works mounted on other hosts, with a path prefix (hrefs resolve against productsUrl's origin)", async () => {
    const custom = createMockHandlers({ baseUrl: "https://api.bank.test/fdx", productsUrl: "https://products.bank.test/", token: "t" });
    server.use(...custom);
    try {
      const { client, requests } = sdkClient({ baseUrl: "https://api.bank.test/fdx/", productsUrl: "https://products.bank.test/", token: "t" });
      expect((await client.consents.get("consent-expired-1")).status).toBe("EXPIRED");
      expect(requests.at(-1)!.url).toBe("https://api.bank.test/fdx/consents/v1/consent-expired-1");
      const all = await client.statements.list({ providerId: "sandbox-bank", accountId: "ACC-1003", limit: 20 }).toArray();
      expect(all).toHaveLength(24);
      expect(requests.at(-1)!.url).toMatch(/^https:\/\/products\.bank\.test\/statements\/v2\/sandbox-bank\/ACC-1003\?cursor=/);
    } finally {
      await custom.mock.dispose();
    }
  });
});
