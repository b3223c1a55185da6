import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { PDFDocument } from "pdf-lib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMockHandlers, DEFAULT_BASE_URL, type Notification } from "../src/index.js";

const handlers = createMockHandlers();
const mock = handlers.mock;
const received: Notification[] = [];
// The user's own webhook receiver, mocked by msw too: deliveries use the patched fetch.
const receiver = http.post("https://receiver.example.com/hook", async ({ request }) => {
  received.push((await request.json()) as Notification);
  return new HttpResponse(null, { status: 200 });
});
const server = setupServer(...handlers, receiver);
const auth = { Authorization: `Bearer ${mock.token}`, "Content-Type": "application/json" };

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => mock.reset());
afterAll(() => server.close());

describe("createMockHandlers with msw setupServer", () => {
  it("mounts at the documented defaults", () => {
    expect(DEFAULT_BASE_URL).toBe("https://sandbox.fdxkit.test");
    expect(mock.baseUrl).toBe("https://sandbox.fdxkit.test");
    expect(mock.productsUrl).toBe("https://sandbox.fdxkit.test/products");
  });

  it("creates, lists and deletes subscriptions", async () => {
    const created = await fetch(`${mock.baseUrl}/notifications/v1/subscriptions`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://receiver.example.com/hook" }),
    });
    expect(created.status).toBe(200);
    const { subscriptionId } = await created.json();
    const list = await (await fetch(`${mock.baseUrl}/notifications/v1/subscriptions`, { headers: auth })).json();
    expect(list.notificationSubscriptions.map((s: { subscriptionId: string }) => s.subscriptionId)).toEqual([subscriptionId]);
    const deleted = await fetch(`${mock.baseUrl}/notifications/v1/subscriptions/${subscriptionId}`, { method: "DELETE", headers: auth });
    expect(deleted.status).toBe(204);
  });

  it("answers the same errors as the server: 401, 501, maintenance 404 and 400", async () => {
    const noToken = await fetch(`${mock.baseUrl}/notifications/v1/subscriptions`);
    expect([noToken.status, await noToken.json()]).toEqual([401, expect.objectContaining({ code: "1205" })]);
    const version = await fetch(`${mock.baseUrl}/notifications/v2/subscriptions`, { headers: auth });
    expect(version.status).toBe(501);
    const unknown = await fetch(`${mock.baseUrl}/notifications/v1/maintenance/nope`, { headers: auth });
    expect([unknown.status, await unknown.json()]).toEqual([404, { code: "NotFound", message: "resource not found" }]);
    const malformed = await fetch(`${mock.baseUrl}/notifications/v1/maintenance/has%20space`, { headers: auth });
    expect([malformed.status, await malformed.json()]).toEqual([400, { code: 401, message: "Invalid input" }]);
  });

  it("switches scheduled maintenance on and off through handlers.mock", async () => {
    mock.setMaintenance(true);
    const down = await fetch(`${mock.baseUrl}/consents/v1/consent-active-1`, { headers: auth });
    expect([down.status, await down.json()]).toEqual([503, { code: "503", message: "Scheduled Maintenance" }]);
    mock.setMaintenance(false);
    expect((await fetch(`${mock.baseUrl}/consents/v1/consent-active-1`, { headers: auth })).status).toBe(200);
  });

  it("pages statements by href and downloads a PDF", async () => {
    const origin = new URL(mock.productsUrl).origin;
    let href: string | undefined = `${mock.productsUrl}/statements/v2/sandbox-bank/ACC-1002?limit=10`;
    const ids: string[] = [];
    let download = "";
    while (href) {
      const page = await (await fetch(new URL(href, origin), { headers: auth })).json();
      for (const s of page.statements) {
        ids.push(s.statementId);
        if (!download && s.status === "AVAILABLE") download = s.links[0].href;
      }
      href = page.links.next?.href;
    }
    expect(new Set(ids).size).toBe(24);
    const pdf = await fetch(new URL(download, origin), { headers: { ...auth, Accept: "application/pdf" } });
    expect(pdf.headers.get("Content-Type")).toBe("application/pdf");
    expect((await PDFDocument.load(await pdf.arrayBuffer())).getPageCount()).toBe(1);
  });

  it("delivers test events through fetch, so an msw receiver gets them", async () => {
    const created = await fetch(`${mock.baseUrl}/notifications/v1/subscriptions`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ category: "MAINTENANCE", type: "SERVICE", callbackUrl: "https://receiver.example.com/hook" }),
    });
    const { subscriptionId } = await created.json();
    const sent = await fetch(`${mock.baseUrl}/notifications/v1/test`, { method: "POST", headers: auth, body: JSON.stringify({ id: subscriptionId }) });
    const notification = await sent.json();
    await mock.idle();
    expect(received).toContainEqual(notification);
    expect(mock.deliveries()).toEqual([expect.objectContaining({ status: "delivered", attempts: 1 })]);
  });

  it("applies the body limit and the interaction id under msw too", async () => {
    const big = await fetch(`${mock.baseUrl}/notifications/v1/subscriptions`, {
      method: "POST",
      headers: { ...auth, "x-fapi-interaction-id": "msw-413" },
      body: JSON.stringify({ pad: "x".repeat(70_000) }),
    });
    expect([big.status, big.headers.get("x-fapi-interaction-id"), (await big.json()).code]).toEqual([413, "msw-413", "413"]);
    const noToken = await fetch(`${mock.baseUrl}/notifications/v1/subscriptions`, { method: "POST", body: "x".repeat(70_000) });
    expect(noToken.status).toBe(401); // the token first, whatever the body
    expect(noToken.headers.get("x-fapi-interaction-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("mounts at a custom baseUrl and productsUrl on different hosts", async () => {
    const custom = createMockHandlers({ baseUrl: "https://api.bank.test/fdx", productsUrl: "https://products.bank.test/", token: "t" });
    server.use(...custom);
    const headers = { Authorization: "Bearer t" };
    expect((await fetch("https://api.bank.test/fdx/consents/v1/consent-expired-1", { headers })).status).toBe(200);
    const page = await (await fetch("https://products.bank.test/statements/v2/sandbox-bank/ACC-1001?limit=1", { headers })).json();
    expect(page.links.next.href).toMatch(/^\/statements\/v2\/sandbox-bank\/ACC-1001\?cursor=/);
    server.resetHandlers();
  });
});
