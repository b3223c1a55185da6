// The SDK's receiving side against the sandbox's sending side: retries with
// the same notificationId, redeliveries handled once, and mutual TLS end to end.
import type { AddressInfo } from "node:net";
import { createWebhookServer, getPeerCertificate, toNodeListener, type WebhookPeerCertificate } from "@fdxkit/client/node";
import { createWebhookHandler, memoryDedupe, type Notification } from "@fdxkit/client/webhooks";
import http from "node:http";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { makeCertificates, type TestCertificates } from "../../../client/test/support/certificates.js";
import { startMockServer, type MockServer, type MockServerOptions } from "../../src/index.js";
import { sdkClient } from "./helpers.js";

let certs: TestCertificates;
beforeAll(() => {
  certs = makeCertificates();
});

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function mockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const mock = await startMockServer({ deliveryRetryDelaysMs: [10, 20, 30], ...options });
  cleanups.push(() => mock.close());
  return mock;
}

async function listen(server: http.Server): Promise<number> {
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** Subscribes `callbackUrl` and sends one test event; resolves with its notificationId once delivery settled. */
async function sendTestEvent(mock: MockServer, callbackUrl: string): Promise<string> {
  const { client } = sdkClient(mock);
  const subscription = await client.subscriptions.create({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl });
  const sent = await client.subscriptions.sendTestEvent(subscription.subscriptionId);
  await mock.idle();
  return sent.notificationId!;
}

describe("at-least-once delivery against createWebhookHandler with dedupe", () => {
  it("a receiver that fails twice gets the same notification three times and handles it once", async () => {
    const mock = await mockServer();
    const calls: string[] = [];
    const handled: string[] = [];
    const handler = createWebhookHandler({
      dedupe: memoryDedupe(),
      onNotification: (notification: Notification) => {
        calls.push(notification.notificationId!);
        if (calls.length <= 2) throw new Error("database not reachable yet");
        handled.push(notification.notificationId!);
      },
    });
    const port = await listen(http.createServer(toNodeListener(handler)));

    const id = await sendTestEvent(mock, `http://127.0.0.1:${port}/webhooks`);
    expect(calls).toEqual([id, id, id]);
    expect(handled).toEqual([id]);
    expect(mock.deliveries()).toEqual([
      expect.objectContaining({
        notificationId: id,
        status: "delivered",
        attempts: 3,
        attemptLog: [500, 500, 200].map((responseStatus) => ({ at: expect.any(String), responseStatus })),
      }),
    ]);

    // A redelivery is answered 200 without a second onNotification.
    const again = await mock.redeliver(id);
    expect(again).toMatchObject({ notificationId: id, status: "delivered", attempts: 1, responseStatus: 200, redelivery: true });
    expect(calls).toHaveLength(3);
    expect(handled).toEqual([id]);
    expect(mock.deliveries()).toHaveLength(2);
  });
});

describe("mutual TLS from the sandbox to createWebhookServer", () => {
  async function receiver(fingerprints?: string[]) {
    const peers: (WebhookPeerCertificate | undefined)[] = [];
    const refusals: Error[] = [];
    const server = createWebhookServer({
      handler: createWebhookHandler({ onNotification: (_n: Notification, request: Request) => void peers.push(getPeerCertificate(request)) }),
      tls: { key: certs.server.key, cert: certs.server.cert, ca: certs.ca.cert },
      ...(fingerprints ? { clientCertificates: { fingerprints } } : {}),
    });
    server.on("tlsClientError", (error: Error) => refusals.push(error));
    const port = await listen(server as unknown as http.Server);
    return { url: `https://127.0.0.1:${port}/webhooks`, peers, refusals };
  }

  it("delivers with the client certificate, trusting the receiver's CA, to a pinned receiver", async () => {
    const mock = await mockServer({ webhookTls: { cert: certs.client.cert, key: certs.client.key, ca: certs.ca.cert } });
    const hooks = await receiver([certs.client.fingerprint256]);
    const id = await sendTestEvent(mock, hooks.url);
    expect(mock.deliveries()).toEqual([expect.objectContaining({ notificationId: id, status: "delivered", attempts: 1, responseStatus: 200 })]);
    expect(hooks.peers).toEqual([expect.objectContaining({ subject: { CN: "fdx-sender", O: "fdxkit test" }, fingerprint256: certs.client.fingerprint256 })]);
    expect(hooks.refusals).toEqual([]);
  });

  it("fails every attempt, never reaching the handler, when the sandbox's certificate is not the pinned one", async () => {
    const mock = await mockServer({ webhookTls: { cert: certs.secondClient.cert, key: certs.secondClient.key, ca: certs.ca.cert } });
    const hooks = await receiver([certs.client.fingerprint256]);
    await sendTestEvent(mock, hooks.url);
    expect(mock.deliveries()).toEqual([expect.objectContaining({ status: "failed", attempts: 4, error: expect.any(String) })]);
    expect(hooks.peers).toEqual([]);
    expect(hooks.refusals).toHaveLength(4);
  });

  it("fails when the sandbox presents no certificate (no webhookTls)", async () => {
    const mock = await mockServer({ deliveryRetryDelaysMs: [] });
    const hooks = await receiver();
    await sendTestEvent(mock, hooks.url);
    expect(mock.deliveries()).toEqual([expect.objectContaining({ status: "failed", attempts: 1, error: expect.any(String) })]);
    expect(hooks.peers).toEqual([]);
  });

  it("refuses a receiver whose certificate the given CA did not sign", async () => {
    const mock = await mockServer({
      deliveryRetryDelaysMs: [],
      webhookTls: { cert: certs.client.cert, key: certs.client.key, ca: certs.otherCa.cert },
    });
    const hooks = await receiver();
    await sendTestEvent(mock, hooks.url);
    expect(mock.deliveries()).toEqual([expect.objectContaining({ status: "failed", error: expect.stringMatching(/certificate/i) })]);
    expect(hooks.peers).toEqual([]);
  });

  it("still delivers to http: callbacks through fetch", async () => {
    const mock = await mockServer({ webhookTls: { cert: certs.client.cert, key: certs.client.key, ca: certs.ca.cert } });
    const calls: Notification[] = [];
    const port = await listen(http.createServer(toNodeListener(createWebhookHandler({ onNotification: (n: Notification) => void calls.push(n) }))));
    await sendTestEvent(mock, `http://127.0.0.1:${port}/webhooks`);
    expect(calls).toHaveLength(1);
  });
});
