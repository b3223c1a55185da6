import https from "node:https";
import { Socket, type AddressInfo } from "node:net";
import tls from "node:tls";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { FdxError, FdxValidationError } from "../../src/core/error.js";
import { createWebhookServer, getPeerCertificate, type WebhookPeerCertificate, type WebhookServerOptions } from "../../src/node/index.js";
import { createWebhookHandler, type Notification } from "../../src/webhooks/index.js";
import { makeCertificates, type KeyPair, type TestCertificates } from "../support/certificates.js";
import { consentNotification } from "../webhooks/fixtures.js";

let certs: TestCertificates;
beforeAll(() => {
  certs = makeCertificates();
});

const servers: https.Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

/** A receiver on 127.0.0.1 counting handler calls and the refusals the server reported. */
async function startReceiver(options: Partial<WebhookServerOptions> = {}) {
  const calls: { notification: Notification; peer: WebhookPeerCertificate | undefined }[] = [];
  const refusals: Error[] = [];
  const server = createWebhookServer({
    handler: createWebhookHandler({ onNotification: (notification, request) => void calls.push({ notification, peer: getPeerCertificate(request) }) }),
    tls: { key: certs.server.key, cert: certs.server.cert, ca: certs.ca.cert },
    ...options,
  });
  servers.push(server);
  server.on("tlsClientError", (error) => refusals.push(error));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, calls, refusals, server };
}

/** POSTs a notification over TLS, presenting `client` (or no certificate). */
function deliver(port: number, client: KeyPair | undefined): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/webhooks",
        ca: certs.ca.cert,
        ...(client ? { key: client.key, cert: client.cert } : {}),
        agent: false,
        headers: { "content-type": "application/json" },
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(JSON.stringify(consentNotification));
  });
}

describe("createWebhookServer", () => {
  it("hands a delivery with a certificate from the CA to the handler, with the verified peer", async () => {
    const receiver = await startReceiver();
    expect(await deliver(receiver.port, certs.client)).toEqual({ status: 200, body: '{"received":true}' });
    expect(receiver.calls).toHaveLength(1);
    expect(receiver.calls[0]?.notification.notificationId).toBe(consentNotification.notificationId);
    expect(receiver.calls[0]?.peer).toEqual({
      subject: { CN: "fdx-sender", O: "fdxkit test" },
      issuer: { CN: "fdxkit test ca" },
      fingerprint256: certs.client.fingerprint256,
      serialNumber: expect.stringMatching(/^[0-9A-F]+$/),
      validFrom: expect.stringMatching(/GMT$/),
      validTo: expect.stringMatching(/GMT$/),
    });
    expect(receiver.refusals).toEqual([]);
  });

  it.each([
    ["no certificate", undefined],
    ["a certificate from another CA", "foreignClient"],
    ["an expired certificate", "expiredClient"],
  ] as const)("refuses %s before the handler", async (_, name) => {
    const receiver = await startReceiver();
    await expect(deliver(receiver.port, name ? certs[name] : undefined)).rejects.toThrow();
    expect(receiver.calls).toHaveLength(0);
    // The handshake failed: the server saw and reported it.
    await expect.poll(() => receiver.refusals.length, { timeout: 5_000 }).toBeGreaterThan(0);
  });

  it("refuses a certificate of the right CA whose fingerprint is not pinned, before the handler", async () => {
    const receiver = await startReceiver({ clientCertificates: { fingerprints: [certs.client.fingerprint256] } });
    await expect(deliver(receiver.port, certs.secondClient)).rejects.toThrow();
    expect(receiver.calls).toHaveLength(0);
    expect(receiver.refusals).toEqual([expect.any(FdxError)]);
    expect(receiver.refusals[0]?.message).toBe("Client certificate refused: fingerprint not pinned");
  });

  it("accepts a pinned certificate, its fingerprint given in any case, with or without colons", async () => {
    const pin = certs.client.fingerprint256.replace(/:/g, "").toLowerCase();
    const receiver = await startReceiver({ clientCertificates: { fingerprints: [certs.secondClient.fingerprint256, pin] } });
    expect((await deliver(receiver.port, certs.client)).status).toBe(200);
    expect(receiver.calls.map((c) => c.peer?.fingerprint256)).toEqual([certs.client.fingerprint256]);
  });

  it("refuses a TLS 1.2 renegotiation, which could bring another certificate after the pin was checked", async () => {
    const receiver = await startReceiver({ clientCertificates: { fingerprints: [certs.client.fingerprint256] } });
    const socket = tls.connect({
      host: "127.0.0.1",
      port: receiver.port,
      ca: certs.ca.cert,
      key: certs.client.key,
      cert: certs.client.cert,
      maxVersion: "TLSv1.2",
    });
    socket.on("error", () => {});
    await new Promise((resolve) => socket.once("secureConnect", resolve));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    socket.renegotiate({ rejectUnauthorized: true }, () => {});
    const body = JSON.stringify(consentNotification);
    socket.write(`POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    // Node ≤ 24.21 closes the connection; newer builds (OpenSSL refusing a client's renegotiation itself) leave it
    // open and silent. Either way the request never reaches the handler and nothing is answered.
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2000))]);
    socket.destroy();
    expect(answer).toBe("");
    expect(receiver.calls).toHaveLength(0);
  });

  it("answers 408 and closes the connection when the body stalls past bodyTimeoutMs", async () => {
    const receiver = await startReceiver({ bodyTimeoutMs: 200 });
    const socket = tls.connect({ host: "127.0.0.1", port: receiver.port, ca: certs.ca.cert, key: certs.client.key, cert: certs.client.cert });
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (answer += chunk));
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.on("secureConnect", () => {
      socket.write("POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{");
    });
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(receiver.calls).toHaveLength(0);
  });

  it("keeps the handler's body limit", async () => {
    const calls: unknown[] = [];
    const server = createWebhookServer({
      handler: createWebhookHandler({ onNotification: (n) => void calls.push(n), maxBodyBytes: 10 }),
      tls: { key: certs.server.key, cert: certs.server.cert, ca: certs.ca.cert },
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    expect((await deliver((server.address() as AddressInfo).port, certs.client)).status).toBe(413);
    expect(calls).toHaveLength(0);
  });

  it("never hands the handler a request from a socket it did not verify", async () => {
    const receiver = await startReceiver();
    const socket = { destroy: () => (destroyed = true) };
    let destroyed = false;
    receiver.server.emit("request", { socket }, {});
    expect(destroyed).toBe(true);
    expect(receiver.calls).toHaveLength(0);
  });

  it.each([
    ["unverified", { authorized: false, authorizationError: new Error("UNABLE_TO_VERIFY_LEAF_SIGNATURE") }, "UNABLE_TO_VERIFY_LEAF_SIGNATURE"],
    ["without a certificate", { authorized: true, getPeerCertificate: () => ({}) }, "no certificate"],
  ])("closes a socket that reports itself %s, whatever let it through", async (_, fields, reason) => {
    const receiver = await startReceiver();
    // An unconnected socket posing as a TLS socket that got through the handshake.
    const socket = Object.assign(new Socket(), fields);
    receiver.server.emit("secureConnection", socket);
    expect(socket.destroyed).toBe(true);
    expect(receiver.refusals.map((e) => e.message)).toEqual([`Client certificate refused: ${reason}`]);
  });

  it.each([
    [{}, ["handler", "tls"]],
    [{ handler: () => new Response(), tls: { key: "k", cert: "" } }, ["tls.cert", "tls.ca"]],
    [{ handler: () => new Response(), tls: { key: "k", cert: "c", ca: "a" }, bodyTimeoutMs: 0 }, ["bodyTimeoutMs"]],
    [{ handler: () => new Response(), tls: { key: "k", cert: "c", ca: "a" }, clientCertificates: { fingerprints: [] } }, ["clientCertificates.fingerprints"]],
    [
      { handler: () => new Response(), tls: { key: "k", cert: "c", ca: "a" }, clientCertificates: { fingerprints: ["AB:CD", 42] } },
      ["clientCertificates.fingerprints.0", "clientCertificates.fingerprints.1"],
    ],
  ])("refuses bad options %#", (options, paths) => {
    try {
      createWebhookServer(options as unknown as WebhookServerOptions);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(FdxValidationError);
      expect((error as FdxValidationError).issues.map((i) => i.path)).toEqual(paths);
    }
  });

  it("refuses options that are not an object", () => {
    expect(() => createWebhookServer(undefined as unknown as WebhookServerOptions)).toThrow(FdxValidationError);
  });
});

describe("getPeerCertificate", () => {
  it("is undefined for a request createWebhookServer did not serve", () => {
    expect(getPeerCertificate(new Request("https://example.test/"))).toBeUndefined();
  });
});
