// The receiver end to end against the local sandbox (@fdxkit/mock): subscribe,
// have the sandbox POST a test event to the receiver, and watch it react.
import http from "node:http";
import { createClient } from "@fdxkit/client";
import { toNodeListener } from "@fdxkit/client/node";
import { startMockServer } from "@fdxkit/mock";
import { createReceiver } from "./receiver.mjs";

const mock = await startMockServer({ port: 0 });
const client = createClient({ baseUrl: mock.baseUrl, token: mock.token, allowInsecureCallbackUrls: true });
const blockedAccounts = new Set();

/** @type {() => void} */
let processed = () => {};
const done = new Promise((resolve) => (processed = () => resolve(undefined)));
const server = http.createServer(toNodeListener(createReceiver({ client, blockedAccounts, onProcessed: () => processed() })));
await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
const callbackUrl = `http://127.0.0.1:${port}/webhooks`;

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
