import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type Notification } from "../src/index.js";
import { useMockServer } from "./helpers.js";

interface Received {
  method: string;
  contentType: string | undefined;
  body: unknown;
}

/** A webhook receiver on 127.0.0.1 that fails the first `failFirst` posts per path with 500. */
function startReceiver() {
  const received: Received[] = [];
  const failuresLeft = new Map<string, number>();
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    received.push({ method: req.method ?? "", contentType: req.headers["content-type"], body: JSON.parse(text) });
    const path = req.url ?? "/";
    const left = failuresLeft.get(path) ?? (path.startsWith("/fail-once") ? 1 : path.startsWith("/always-fail") ? Infinity : 0);
    failuresLeft.set(path, left - 1);
    res.writeHead(left > 0 ? 500 : 200).end();
  });
  return {
    received,
    async listen() {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const ctx = useMockServer({ deliveryRetryDelaysMs: [10, 20, 30] });
const receiver = startReceiver();
let receiverUrl = "";
beforeAll(async () => {
  receiverUrl = await receiver.listen();
});
afterAll(() => receiver.close());

async function subscribe(callbackPath: string, category = "MAINTENANCE", type = "PLANNED_OUTAGE") {
  const response = await ctx.api("/notifications/v1/subscriptions", {
    method: "POST",
    body: JSON.stringify({ category, type, callbackUrl: `${receiverUrl}${callbackPath}` }),
  });
  expect(response.status).toBe(200);
  return (await response.json()).subscriptionId as string;
}

async function sendTest(id: string) {
  const response = await ctx.api("/notifications/v1/test", { method: "POST", body: JSON.stringify({ id }) });
  return { status: response.status, body: await response.json() };
}

describe("POST /notifications/v1/test", () => {
  it("answers 200 with the notification and POSTs it as JSON to the callback URL", async () => {
    const id = await subscribe("/hook-ok");
    const { status, body } = await sendTest(id);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      notificationId: expect.any(String),
      sentOn: expect.any(String),
      subscriber: { name: expect.any(String), type: expect.any(String), registry: expect.any(String), registeredEntityId: expect.any(String) },
      publisher: { name: expect.any(String), type: expect.any(String), registry: expect.any(String), registeredEntityId: expect.any(String) },
      category: "MAINTENANCE",
      type: "PLANNED_OUTAGE",
      notificationPayload: { id: expect.any(String), idType: "MAINTENANCE", customFields: expect.any(Array), url: { href: expect.any(String) } },
      url: { href: expect.any(String) },
    });
    expect(Number.isNaN(Date.parse(body.sentOn))).toBe(false);

    await ctx.mock.idle();
    const delivered = receiver.received.filter((r) => (r.body as Notification).notificationId === body.notificationId);
    expect(delivered).toEqual([{ method: "POST", contentType: "application/json", body }]);
    expect(ctx.mock.deliveries().find((d) => d.notification.notificationId === body.notificationId)).toMatchObject({
      subscriptionId: id,
      url: `${receiverUrl}/hook-ok`,
      status: "delivered",
      attempts: 1,
      responseStatus: 200,
    });
  });

  it("points a maintenance event at a seeded notice that can be read back", async () => {
    const { body } = await sendTest(await subscribe("/hook-ok", "MAINTENANCE", "SERVICE"));
    const payloadId = body.notificationPayload.id as string;
    expect(ctx.mock.seed.maintenance.map((m) => m.id)).toContain(payloadId);
    const details = await ctx.api(`/notifications/v1/maintenance/${payloadId}`);
    expect(await details.json()).toMatchObject({ id: payloadId, type: "SERVICE" });
    expect((await ctx.api(new URL(body.notificationPayload.url.href).pathname)).status).toBe(200);
  });

  it("points a consent event at a seeded consent whose status fits the type", async () => {
    const revoked = (await sendTest(await subscribe("/hook-ok", "CONSENT", "CONSENT_REVOKED"))).body;
    expect(revoked.notificationPayload.idType).toBe("CONSENT");
    const consent = await (await ctx.api(`/consents/v1/${revoked.notificationPayload.id}`)).json();
    expect(consent.status).toBe("REVOKED");

    const updated = (await sendTest(await subscribe("/hook-ok", "CONSENT", "CONSENT_UPDATED"))).body;
    expect(ctx.mock.seed.consents.map((c) => c.id)).toContain(updated.notificationPayload.id);
    await ctx.mock.idle();
  });

  it("retries a failed delivery: a receiver failing the first attempt gets it on the second", async () => {
    const id = await subscribe("/fail-once");
    const { body } = await sendTest(id);
    await ctx.mock.idle();
    expect(receiver.received.filter((r) => (r.body as Notification).notificationId === body.notificationId)).toHaveLength(2);
    expect(ctx.mock.deliveries().find((d) => d.subscriptionId === id)).toMatchObject({ status: "delivered", attempts: 2, responseStatus: 200 });
  });

  it("marks a delivery failed after 3 retries when the receiver keeps failing, each attempt with the same notification", async () => {
    const id = await subscribe("/always-fail");
    const { body } = await sendTest(id);
    await ctx.mock.idle();
    expect(ctx.mock.deliveries().find((d) => d.subscriptionId === id)).toMatchObject({
      status: "failed",
      attempts: 4,
      responseStatus: 500,
      notificationId: body.notificationId,
      attemptLog: [500, 500, 500, 500].map((responseStatus) => ({ at: expect.any(String), responseStatus })),
      redelivery: false,
    });
    expect(receiver.received.filter((r) => (r.body as Notification).notificationId === body.notificationId)).toHaveLength(4);
  });

  it("marks a delivery failed when nothing listens, with the network error", async () => {
    const mock = await startMockServer({ deliveryRetryDelaysMs: [1, 1, 1] });
    const closed = startReceiver();
    const deadUrl = await closed.listen();
    await closed.close();
    try {
      const headers = { Authorization: `Bearer ${mock.token}`, "Content-Type": "application/json" };
      const created = await fetch(`${mock.baseUrl}/notifications/v1/subscriptions`, {
        method: "POST",
        headers,
        body: JSON.stringify({ category: "CONSENT", type: "CONSENT_UPDATED", callbackUrl: `${deadUrl}/gone` }),
      });
      const { subscriptionId } = await created.json();
      const sent = await fetch(`${mock.baseUrl}/notifications/v1/test`, { method: "POST", headers, body: JSON.stringify({ id: subscriptionId }) });
      expect(sent.status).toBe(200);
      await mock.idle();
      expect(mock.deliveries()).toEqual([expect.objectContaining({ status: "failed", attempts: 4, error: expect.any(String) })]);
    } finally {
      await mock.close();
    }
  });

  it("keeps the records of the last 1,000 deliveries only", async () => {
    const id = await subscribe("/hook-many");
    const sent: string[] = [];
    for (let i = 0; i < 1010; i++) sent.push((await sendTest(id)).body.notificationId as string);
    await ctx.mock.idle();
    const records = ctx.mock.deliveries();
    expect(records).toHaveLength(1000);
    expect(records.map((d) => d.notification.notificationId)).toEqual(sent.slice(10));
  });

  it("answers an unknown or missing id with 400 Invalid Input", async () => {
    const unknown = await sendTest("no-such-subscription");
    expect(unknown).toEqual({ status: 400, body: { code: "401", message: "Invalid Input", debugMessage: "subscription id was not found" } });
    const missing = await ctx.api("/notifications/v1/test", { method: "POST", body: "{}" });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ code: "401", message: "Invalid Input" });
  });
});

describe("GET /notifications/v1/test", () => {
  it("answers the short form (category, type, notificationPayload, url) and delivers nothing", async () => {
    const id = await subscribe("/hook-ok", "CONSENT", "CONSENT_REVOKED");
    const before = ctx.mock.deliveries().length;
    const response = await ctx.api(`/notifications/v1/test?id=${id}`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(Object.keys(body).sort()).toEqual(["category", "notificationPayload", "type", "url"]);
    expect(body).toMatchObject({ category: "CONSENT", type: "CONSENT_REVOKED", notificationPayload: { idType: "CONSENT" } });
    expect(ctx.mock.deliveries()).toHaveLength(before);
  });

  it("answers a maintenance sample without an id", async () => {
    const body = await (await ctx.api("/notifications/v1/test")).json();
    expect(body).toMatchObject({ category: "MAINTENANCE", notificationPayload: { idType: "MAINTENANCE" } });
  });
});
