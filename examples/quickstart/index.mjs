// fdxkit quickstart: the SDK end to end against the in-memory sandbox.
// Starts the sandbox and a webhook receiver, subscribes, sends a test event,
// reads what it points to, pages through statements and saves the PDFs.
import { mkdir, rm } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, FdxApiError } from "@fdxkit/client";
import { saveStatement, toNodeListener } from "@fdxkit/client/node";
import { createWebhookHandler, isConsentNotification, isMaintenanceNotification } from "@fdxkit/client/webhooks";
import { startMockServer } from "@fdxkit/mock";

const outDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "statements");
const started = Date.now();

const mock = await startMockServer({ port: 0 });
console.log(`sandbox      ${mock.baseUrl} (statements at ${mock.productsUrl})`);

// A local webhook receiver: the sandbox really POSTs the test event here.
/** @type {(n: import("@fdxkit/client").Notification) => void} */
let onWebhook = () => {};
/** @type {Promise<import("@fdxkit/client").Notification>} */
const received = new Promise((resolve) => (onWebhook = resolve));
const receiver = http.createServer(toNodeListener(createWebhookHandler({ onNotification: async (n) => onWebhook(n) })));
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", () => resolve(undefined)));
const address = /** @type {import("node:net").AddressInfo} */ (receiver.address());
const callbackUrl = `http://127.0.0.1:${address.port}/webhooks`;
console.log(`receiver     ${callbackUrl}`);

const client = createClient({
  baseUrl: mock.baseUrl,
  productsUrl: mock.productsUrl,
  token: mock.token,
  allowInsecureCallbackUrls: true, // http:// to loopback, for local development only
});

try {
  const subscription = await client.subscriptions.create({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl });
  console.log(`subscribed   ${subscription.subscriptionId} (${subscription.category}/${subscription.type})`);

  const sent = await client.subscriptions.sendTestEvent(subscription.subscriptionId);
  const notification = await within(5_000, received, "no webhook arrived within 5 s");
  console.log(`webhook      ${notification.category}/${notification.type} received (test event ${sent.notificationId})`);

  if (isConsentNotification(notification)) {
    const consent = await client.consents.get(notification.notificationPayload.id);
    console.log(`consent      ${consent.id}: ${consent.status}, ${consent.resources?.length ?? 0} resources`);
  } else if (isMaintenanceNotification(notification)) {
    const notice = await client.maintenance.get(notification.notificationPayload.id);
    console.log(`maintenance  ${notice.title}`);
  }

  const { providerId, accounts } = mock.seed;
  const accountId = accounts[0]?.accountId ?? "";
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  let pages = 0;
  let statements = 0;
  let saved = 0;
  let bytes = 0;
  for await (const page of client.statements.list({ providerId, accountId, limit: 6 }).pages()) {
    pages++;
    for (const statement of page.statements) {
      statements++;
      if (statement.status !== "AVAILABLE") continue;
      const document = await client.statements.download(statement);
      const file = path.join(outDir, `${statement.statementDate?.slice(0, 10) ?? statements}.pdf`);
      const result = await saveStatement(document, file);
      saved++;
      bytes += result.bytes;
    }
  }
  const skipped = statements - saved;
  console.log(
    `statements   ${statements} of ${providerId}/${accountId} in ${pages} pages; ${saved} PDFs saved to ${path.relative(process.cwd(), outDir) || "."} (${(bytes / 1024).toFixed(0)} KiB)` +
      (skipped ? `, ${skipped} not available` : ""),
  );

  await client.subscriptions.delete(subscription.subscriptionId);
  const after = await client.subscriptions.get(subscription.subscriptionId).then(
    () => new Error("the subscription is still there after delete"),
    (/** @type {unknown} */ error) => error,
  );
  if (!(after instanceof FdxApiError)) throw after;
  console.log(`deleted      ${subscription.subscriptionId} (reading it back now answers ${after.status}: ${after.debugMessage ?? after.message})`);
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  receiver.closeAllConnections();
  receiver.close();
  await mock.close();
}

/**
 * `promise`, or a rejection with `message` after `ms` (so the demo never hangs).
 * @template T
 * @param {number} ms
 * @param {Promise<T>} promise
 * @param {string} message
 * @returns {Promise<T>}
 */
async function within(ms, promise, message) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  try {
    return await Promise.race([promise, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
