import { Agent, request } from "node:https";
import type { DeliveryTransport, WebhookTlsOptions } from "./delivery.js";

type Pem = string | Uint8Array;
const isPem = (value: unknown): value is Pem => typeof value === "string" || value instanceof Uint8Array;
const toNode = (value: Pem): string | Buffer => (typeof value === "string" ? value : Buffer.from(value));

/** Checks the shape of `webhookTls` (a clear error at start rather than a failed delivery later). */
export function checkWebhookTls(value: unknown): WebhookTlsOptions {
  const tls = value as Partial<WebhookTlsOptions> | null;
  if (typeof tls !== "object" || tls === null || !isPem(tls.cert) || !isPem(tls.key)) {
    throw new TypeError("webhookTls must be { cert, key, ca? } with PEM strings or bytes");
  }
  if (tls.ca !== undefined && !isPem(tls.ca) && !(Array.isArray(tls.ca) && tls.ca.every(isPem))) {
    throw new TypeError("webhookTls.ca must be PEM (a string, bytes, or an array of them)");
  }
  return tls as WebhookTlsOptions;
}

/**
 * Posts to `https:` callback URLs with node:https, presenting the client
 * certificate (mutual TLS); the receiver's certificate must chain to `ca` and
 * name the callback's host. Connections are kept alive between deliveries.
 */
export function mutualTlsTransport(options: WebhookTlsOptions): DeliveryTransport {
  const tls = checkWebhookTls(options);
  const agent = new Agent({
    cert: toNode(tls.cert),
    key: toNode(tls.key),
    ...(tls.ca === undefined ? {} : { ca: Array.isArray(tls.ca) ? tls.ca.map(toNode) : toNode(tls.ca) }),
    ...(tls.passphrase === undefined ? {} : { passphrase: tls.passphrase }),
    keepAlive: true,
  });
  return {
    handles: (url) => url.startsWith("https:"),
    post: (url, body, signal) =>
      new Promise<number>((resolve, reject) => {
        const posting = request(
          url,
          {
            method: "POST",
            agent,
            signal,
            headers: { "content-type": "application/json", accept: "*/*", "content-length": Buffer.byteLength(body) },
          },
          (response) => {
            // Only the status matters; the rest is read and dropped so the connection can be reused.
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        posting.on("error", reject);
        posting.end(body);
      }),
    close: () => agent.destroy(),
  };
}
