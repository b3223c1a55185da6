// The one scenario every runtime of the matrix runs, against the sandbox's
// real server (started by scripts/check-runtime-matrix.mjs, from Node). It
// imports the packages by name, as a user's code in that runtime would, and
// uses only the public API of DESIGN.md. No Node built-ins here: it also runs
// in workerd, edge-runtime and browsers.
import { createClient, FdxApiError, FdxError, FdxNotFoundError, FdxValidationError } from "@fdxkit/client";
import { FdxAuthError, openAuthorization, sealAuthorization } from "@fdxkit/client/auth";
import { createWebhookHandler, isConsentNotification } from "@fdxkit/client/webhooks";

import { SCENARIO_STEPS as STEPS } from "./steps.mjs";

const SAMPLE = {
  notificationId: "ntf-matrix-1",
  sentOn: "2025-03-15T17:02:11Z",
  subscriber: { name: "Budget App", type: "DATA_RECIPIENT" },
  publisher: { name: "Example Bank", type: "DATA_PROVIDER" },
  category: "CONSENT",
  type: "CONSENT_REVOKED",
  notificationPayload: { id: "cns-7f3e2a", idType: "CONSENT" },
  url: { href: "/consents/v1/cns-7f3e2a", action: "GET", rel: "consent" },
};

function check(condition, message) {
  if (!condition) throw new Error(message);
}

function describe(error) {
  if (error instanceof Error) return `${error.constructor?.name ?? error.name}: ${error.message}`;
  return String(error);
}

/**
 * The webhook receiver this runtime serves on its own server (Bun.serve,
 * Deno.serve, a Worker's fetch, …): a `createWebhookHandler` that records
 * what it was given.
 */
export function createReceiver() {
  const received = [];
  const handler = createWebhookHandler({
    onNotification: (notification) => {
      received.push(notification);
    },
    maxBodyBytes: 64 * 1024,
  });
  return { handler, received };
}

function post(body, contentType = "application/json") {
  return new Request("http://receiver.test/webhooks", {
    method: "POST",
    headers: contentType ? { "content-type": contentType } : {},
    body,
  });
}

/** Waits (polling, so it works across requests in workerd) until `predicate()` holds, or fails after `ms`. */
async function waitFor(predicate, ms, what) {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Runs the scenario and resolves with one entry per step of `STEPS`
 * (`{ name, ok, detail?, error? }`); it never rejects.
 *
 * config: { baseUrl, productsUrl, token, consentId, providerId, accountId,
 *   callbackUrl?: where this runtime serves `receiver.handler` (absent in
 *   browsers: there the test event is passed to the handler directly) }
 */
export async function runScenario(config, receiver = createReceiver()) {
  const { baseUrl, productsUrl, token, consentId, providerId, accountId } = config;
  const client = createClient({ baseUrl, productsUrl, token, allowInsecureCallbackUrls: true });
  const steps = [];
  const step = async (name, fn) => {
    try {
      steps.push({ name, ok: true, detail: (await fn()) ?? "" });
    } catch (error) {
      steps.push({ name, ok: false, error: describe(error) });
    }
  };

  let firstStatement;
  await step(STEPS[0], async () => {
    const grant = await client.consents.get(consentId);
    check(grant.id === consentId, `got consent ${grant.id}, asked for ${consentId}`);
    return `${grant.id}: ${grant.status}`;
  });

  await step(STEPS[1], async () => {
    const params = { providerId, accountId, limit: 5 };
    const ids = [];
    for await (const statement of client.statements.list(params)) {
      ids.push(statement.statementId);
      if (statement.status === "AVAILABLE") firstStatement ??= statement;
    }
    let pages = 0;
    let onPages = 0;
    for await (const page of client.statements.list(params).pages()) {
      pages++;
      onPages += page.statements.length;
    }
    check(ids.length > 5 && pages > 1, `only ${ids.length} statements in ${pages} pages`);
    check(new Set(ids).size === ids.length, "a statement came twice");
    check(onPages === ids.length, `pages() saw ${onPages} statements, for await ${ids.length}`);
    return `${ids.length} statements in ${pages} pages`;
  });

  await step(STEPS[2], async () => {
    check(firstStatement, "no AVAILABLE statement to download");
    const document = await client.statements.download(firstStatement);
    check(document.contentType.startsWith("application/pdf"), `content type ${document.contentType}`);
    const bytes = new Uint8Array(await document.arrayBuffer());
    check(new TextDecoder().decode(bytes.subarray(0, 5)) === "%PDF-", "not a PDF");
    if (document.contentLength !== undefined) check(document.contentLength === bytes.byteLength, "Content-Length differs from the bytes read");
    const streamed = await client.statements.download(firstStatement);
    const reader = streamed.body.getReader();
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
    }
    check(total === bytes.byteLength, `streamed ${total} bytes, arrayBuffer() ${bytes.byteLength}`);
    return `${bytes.byteLength} bytes`;
  });

  await step(STEPS[3], async () => {
    let error;
    try {
      await client.consents.get("no-such-consent");
    } catch (e) {
      error = e;
    }
    check(error instanceof FdxNotFoundError, `got ${describe(error)}`);
    check(error instanceof FdxApiError && error instanceof FdxError, "not an FdxApiError/FdxError");
    check(error.status === 404 && typeof error.code === "string", `status ${error.status}, code ${error.code}`);
    return `${error.status} ${error.code}`;
  });

  await step(STEPS[4], async () => {
    const { handler, received } = createReceiver();
    const ok = await handler(post(JSON.stringify(SAMPLE)));
    check(ok.status === 200, `POST answered ${ok.status}: ${await ok.text()}`);
    check(received.length === 1 && received[0].notificationId === SAMPLE.notificationId, "onNotification not called with the notification");
    const get = await handler(new Request("http://receiver.test/webhooks"));
    check(get.status === 405 && get.headers.get("allow") === "POST", `GET answered ${get.status}, Allow ${get.headers.get("allow")}`);
    return "200, 405 Allow: POST";
  });

  await step(STEPS[5], async () => {
    const { handler, received } = createReceiver();
    const notJson = await handler(post("{not json"));
    check(notJson.status === 400, `bad JSON answered ${notJson.status}`);
    const notNotification = await handler(post(JSON.stringify({ hello: "world" })));
    check(notNotification.status === 400, `a non-notification answered ${notNotification.status}`);
    const text = await handler(post(JSON.stringify(SAMPLE), "text/plain"));
    check(text.status === 415, `text/plain answered ${text.status}`);
    const big = await handler(post(JSON.stringify({ ...SAMPLE, pad: "x".repeat(70 * 1024) })));
    check(big.status === 413, `a 70 KiB body answered ${big.status}`);
    check(received.length === 0, "onNotification called for a bad body");
    let misuse;
    try {
      createWebhookHandler({});
    } catch (e) {
      misuse = e;
    }
    check(misuse instanceof FdxValidationError, `createWebhookHandler({}) threw ${describe(misuse)}`);
    return "400, 400, 415, 413; misuse FdxValidationError";
  });

  await step(STEPS[6], async () => {
    const callbackUrl = "https://hooks.example.com/fdx/matrix";
    const created = await client.subscriptions.create({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl });
    const id = created.subscriptionId;
    check(typeof id === "string" && id.length > 0, "no subscriptionId");
    check((await client.subscriptions.get(id)).callbackUrl === callbackUrl, "get: wrong callbackUrl");
    check(
      (await client.subscriptions.list()).some((s) => s.subscriptionId === id),
      "list: missing",
    );
    const updated = await client.subscriptions.update(id, { callbackUrl: `${callbackUrl}/2` });
    check(updated.callbackUrl === `${callbackUrl}/2`, "update: callbackUrl unchanged");
    await client.subscriptions.delete(id);
    const gone = await client.subscriptions.get(id).then(
      () => "still there",
      // The service answers an unknown subscription id with 400 Invalid Input (404 would do too).
      (e) => (e instanceof FdxApiError && (e.status === 400 || e.status === 404) ? "gone" : describe(e)),
    );
    check(gone === "gone", `after delete: ${gone}`);
    return "create, get, list, update, delete";
  });

  await step(STEPS[7], async () => {
    const strict = createClient({ baseUrl, productsUrl, token, validateResponses: true });
    const grant = await strict.consents.get(consentId);
    const page = await strict.statements.list({ providerId, accountId, limit: 3 }).pages()[Symbol.asyncIterator]().next();
    check(!page.done && page.value.statements.length === 3, "no first page");
    return `consent ${grant.status}, ${page.value.statements.length} statements validated`;
  });

  await step(STEPS[8], async () => {
    const before = receiver.received.length;
    const callbackUrl = config.callbackUrl ?? "https://hooks.example.com/fdx/direct";
    const subscription = await client.subscriptions.create({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl });
    try {
      const sent = await client.subscriptions.sendTestEvent(subscription.subscriptionId);
      if (config.callbackUrl) {
        await waitFor(() => receiver.received.length > before, 10_000, "no delivery reached the served handler");
      } else {
        const response = await receiver.handler(post(JSON.stringify(sent)));
        check(response.status === 200, `handler answered ${response.status}`);
      }
      const got = receiver.received[receiver.received.length - 1];
      check(got.notificationId === sent.notificationId, `received ${got.notificationId}, sent ${sent.notificationId}`);
      check(isConsentNotification(got), "not a consent notification");
      return config.callbackUrl ? `${got.notificationId} via ${new URL(config.callbackUrl).host}` : `${got.notificationId}, handler called directly`;
    } finally {
      await client.subscriptions.delete(subscription.subscriptionId).catch(() => {});
    }
  });

  // Sealing needs only Web Crypto, so it runs in browsers too, though an app seals on its server (the keys are secrets).
  await step(STEPS[9], async () => {
    const random = (size) => {
      let binary = "";
      for (const b of crypto.getRandomValues(new Uint8Array(size))) binary += String.fromCharCode(b);
      return btoa(binary);
    };
    const keys = { k1: random(32) };
    const pending = { state: random(32), nonce: random(32), codeVerifier: random(32) };
    const sealed = await sealAuthorization(pending, { connectionId: "matrix-user", keys, current: "k1" });
    check(/^v1\.k1\.[A-Za-z0-9_-]+$/.test(sealed) && sealed.length <= 1024, `sealed as ${sealed.length} characters, not one base64url string of at most 1 KiB`);
    const opened = await openAuthorization(sealed, { connectionId: "matrix-user", keys });
    check(
      opened.state === pending.state && opened.nonce === pending.nonce && opened.codeVerifier === pending.codeVerifier,
      "the opened values differ from the sealed ones",
    );
    let refused;
    try {
      await openAuthorization(sealed, { connectionId: "another-user", keys });
    } catch (e) {
      refused = e;
    }
    check(refused instanceof FdxAuthError && refused.error === "invalid_state", `another connection id: ${refused ? describe(refused) : "it opened"}`);
    return `${sealed.length} characters; another connection id: ${refused.error}`;
  });

  return steps;
}
