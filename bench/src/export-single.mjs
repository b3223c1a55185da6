#!/usr/bin/env node
// The baseline of the bulk export benchmark: one account's export as the CLI
// did it before it took many accounts (its algorithm, on the public client
// API): the list read page by page (one page ahead), four workers
// downloading, each 429 retried by the client for the worker that met it
// alone (no shared pause), the client's default two retries.
//
//   node export-single.mjs BASE_URL PRODUCTS_URL TOKEN PROVIDER ACCOUNT FROM TO OUT_DIR
//
// Prints one JSON line: { downloaded, failed, rateLimited, elapsedMs }.
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createClient } from "@fdxkit/client";
import { saveStatement } from "@fdxkit/client/node";

const [baseUrl, productsUrl, token, providerId, accountId, from, to, out] = process.argv.slice(2);
const started = performance.now();
let downloaded = 0;
let failed = 0;
let rateLimited = 0;
const client = createClient({
  baseUrl,
  productsUrl,
  token,
  // Counts the 429s only (a client without hooks ignores the option).
  hooks: { onRetry: (e) => void (e.error?.status === 429 && rateLimited++) },
});
const iterator = client.statements.list({ providerId, accountId, startTime: from, endTime: to }, { prefetch: 1 })[Symbol.asyncIterator]();
let n = 0;
let listFailed = false;
async function worker() {
  for (;;) {
    let next;
    try {
      next = await iterator.next();
    } catch {
      listFailed = true;
      return;
    }
    if (next.done) return;
    const statement = next.value;
    if (statement.status === "PROCESSING" || statement.status === "FAILED") continue;
    try {
      const document = await client.statements.download(statement);
      await saveStatement(document, path.join(out, `${accountId}-${n++}.pdf`));
      downloaded++;
    } catch {
      failed++;
    }
  }
}
await Promise.all(Array.from({ length: 4 }, worker));
process.stdout.write(`${JSON.stringify({ downloaded, failed: failed + (listFailed ? 1 : 0), rateLimited, elapsedMs: performance.now() - started })}\n`);
process.exit(0);
