// The Hono receiver end to end against the local sandbox (@fdxkit/mock):
// subscribe, have the sandbox POST a test event to the app, watch it react.
import { serve } from "@hono/node-server";
import { createClient } from "@fdxkit/client";
import { startMockServer } from "@fdxkit/mock";
import { createApp } from "./app.mjs";

const mock = await startMockServer({ port: 0 });
const client = createClient({ baseUrl: mock.baseUrl, token: mock.token, allowInsecureCallbackUrls: true });
const blockedAccounts = new Set();

/** @type {() => void} */
let processed = () => {};
const done = new Promise((resolve) => (processed = () => resolve(undefined)));
const app = createApp({ client, blockedAccounts, onProcessed: () => processed() });
/** @type {(port: number) => void} */
let listening = () => {};
const ready = new Promise((resolve) => (listening = resolve));
// overrideGlobalObjects: false keeps Node's own Request/Response globals
// (otherwise the server swaps in its own, and an `instanceof Response`
// elsewhere in the process stops matching what fetch returns).
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1", overrideGlobalObjects: false }, (info) => listening(info.port));
const callbackUrl = `http://127.0.0.1:${await ready}/webhooks`;

try {
  const subscription = await client.subscriptions.create({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl });
  console.log(`subscribed ${callbackUrl} to CONSENT/CONSENT_REVOKED`);
  await client.subscriptions.sendTestEvent(subscription.subscriptionId);
  await done;
  console.log(`blocked accounts: ${[...blockedAccounts].join(", ") || "none"}`);
} finally {
  server.close();
  await mock.close();
}
