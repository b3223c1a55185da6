import http from "node:http";
import type { AddressInfo } from "node:net";
import { createClient, type ClientOptions, type FdxClient } from "@fdxkit/client";
import { toNodeListener } from "@fdxkit/client/node";
import { createWebhookHandler, type Notification } from "@fdxkit/client/webhooks";
import type { MockServer } from "../../src/index.js";

/** An SDK client pointed at a running mock, with every request it sends recorded. */
export function sdkClient(mock: Pick<MockServer, "baseUrl" | "productsUrl" | "token">, options: Partial<ClientOptions> = {}) {
  const requests: { method: string; url: string }[] = [];
  const client: FdxClient = createClient({
    baseUrl: mock.baseUrl,
    productsUrl: mock.productsUrl,
    token: mock.token,
    allowInsecureCallbackUrls: true,
    fetch: (request: Request) => {
      requests.push({ method: request.method, url: request.url });
      // Looked up at call time, so msw's patched fetch is used when it is listening.
      return globalThis.fetch(request);
    },
    ...options,
  });
  return { client, requests };
}

/** A real webhook receiver on node:http: the SDK's createWebhookHandler behind toNodeListener. */
export async function startReceiver() {
  const received: Notification[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const handler = createWebhookHandler({
    onNotification: async (notification) => {
      received.push(notification);
      for (const waiter of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
  });
  const server = http.createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    /** Resolves with the notification number `count` (1-based) once it has arrived. */
    async nth(count: number): Promise<Notification> {
      if (received.length < count) await new Promise<void>((resolve) => waiters.push({ count, resolve }));
      return received[count - 1]!;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** True when the bytes are a PDF file (header and end-of-file marker). */
export function isPdf(bytes: Uint8Array): boolean {
  const text = Buffer.from(bytes).toString("latin1");
  return text.startsWith("%PDF-") && text.trimEnd().endsWith("%%EOF");
}
