// The webhooks entry in a browser (or any Fetch-API runtime): parsing raw
// bodies from the platform's own types, and the handler driven by a real
// `new Request` — no Node built-ins involved.
import { expect, it } from "vitest";
import {
  createWebhookHandler,
  FdxWebhookError,
  isConsentNotification,
  isMaintenanceNotification,
  parseNotification,
  type Notification,
} from "../src/webhooks/index.js";

const consentRevoked = {
  notificationId: "n-1",
  sentOn: "2024-05-01T10:00:00Z",
  category: "CONSENT",
  type: "CONSENT_REVOKED",
  notificationPayload: { id: "consent-42", idType: "CONSENT" },
  futureField: { kept: true },
};
const text = JSON.stringify(consentRevoked);

it("parses a body given as string, Uint8Array or ArrayBuffer, keeping unknown fields", () => {
  const bytes = new TextEncoder().encode(text);
  for (const body of [text, bytes, bytes.buffer.slice(0)]) {
    const n = parseNotification(body);
    expect(isConsentNotification(n)).toBe(true);
    expect(isMaintenanceNotification(n)).toBe(false);
    expect(n.notificationPayload.id).toBe("consent-42");
    expect((n as Notification & { futureField?: unknown }).futureField).toEqual({ kept: true });
  }
});

it("accepts a category this SDK does not know yet, rejects a body missing required fields", () => {
  expect(parseNotification({ ...consentRevoked, category: "FRAUD" }).category).toBe("FRAUD");
  const error = (() => {
    try {
      return parseNotification({ category: "CONSENT" });
    } catch (e) {
      return e;
    }
  })();
  expect(error).toBeInstanceOf(FdxWebhookError);
  expect((error as FdxWebhookError).issues.map((i) => i.path)).toEqual(expect.arrayContaining(["type", "notificationPayload"]));
});

it("never lets __proto__ in a body reach Object.prototype", () => {
  parseNotification(`{"category":"CONSENT","type":"CONSENT_UPDATED","notificationPayload":{},"__proto__":{"polluted":1}}`);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

function post(body: BodyInit, contentType = "application/json") {
  return new Request("https://app.test/webhooks", { method: "POST", headers: { "content-type": contentType }, body });
}

it("createWebhookHandler answers 200 after onNotification resolves, with the parsed notification", async () => {
  const received: Notification[] = [];
  const handler = createWebhookHandler({ onNotification: async (n) => void received.push(n) });
  const response = await handler(post(text));
  expect(response.status).toBe(200);
  expect(received).toHaveLength(1);
  expect(received[0]?.type).toBe("CONSENT_REVOKED");
});

it("createWebhookHandler refuses wrong method, content type, size and body, and reports a failing callback", async () => {
  let calls = 0;
  const handler = createWebhookHandler({ onNotification: () => void calls++, maxBodyBytes: 64 });

  const get = await handler(new Request("https://app.test/webhooks"));
  expect(get.status).toBe(405);
  expect(get.headers.get("allow")).toBe("POST");
  expect((await handler(post(text.slice(0, 60), "text/plain"))).status).toBe(415);
  // A streamed body (no Content-Length) past the limit: the count, not the header, decides.
  const stream = new Blob([text]).stream();
  const big = new Request("https://app.test/webhooks", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: stream,
    // @ts-expect-error `duplex` is required by Chromium for stream bodies; lib.dom lacks it.
    duplex: "half",
  });
  expect((await handler(big)).status).toBe(413);
  expect((await handler(post(`{"category":1}`))).status).toBe(400);
  expect(calls).toBe(0);

  const failing = createWebhookHandler({
    onNotification: () => {
      throw new Error("db down");
    },
  });
  const failed = await failing(post(text));
  expect(failed.status).toBe(500);
  expect(await failed.text()).not.toContain("db down");
});
