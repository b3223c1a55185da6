#!/usr/bin/env node
// Browser-entry hygiene and size budgets, measured on the built packages.
// Each entry is bundled for the browser with nothing external: a Node
// built-in anywhere in its graph fails the gate. Sizes are min + gzip -9 of
// what loads up front; chunks behind import() (opt-in features such as
// response validation) load only when used and are reported apart.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TYPICAL_USE, measureEntry } from "./bundle-size.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const client = path.join(root, "packages/client");
const alias = {
  "@fdxkit/client/webhooks": path.join(client, "dist/webhooks.js"),
  "@fdxkit/client/auth": path.join(client, "dist/auth.js"),
  "@fdxkit/client": path.join(client, "dist/index.js"),
};

const webhooksUse = `
import { createWebhookHandler, isConsentNotification } from "@fdxkit/client/webhooks";
export default createWebhookHandler({ onNotification: async (n) => { if (isConsentNotification(n)) console.log(n.notificationPayload.id); } });
`;

const budgets = [
  { name: "main entry, whole", entry: { file: path.join(client, "dist/index.js") } },
  { name: "webhooks entry, whole", entry: { file: path.join(client, "dist/webhooks.js") } },
  // Web APIs only, like the main entry: a Node built-in in its graph fails the gate.
  { name: "auth entry, whole", entry: { file: path.join(client, "dist/auth.js") } },
  // 10.75 kB since issue 26 put the download limits (maxDownloadBytes, the per-chunk stall timer), the
  // pagination and wrong-kind rules and redaction before every cut in the main entry (9.5 kB before,
  // 10.35 kB after; the redirect rules load on demand, on a download's first redirect), and issue 24 the
  // token function's repeat after a 401 (with every token of the call redacted) and withOptions (10.58 kB).
  // 10.6 kB since issue 29: Node's own transport must not grow the browser bundle (10,592 B before it; the
  // attempt's signal moved into the fetch sender and the request path's failures share one builder).
  // 10.75 kB since issue 35: actorType (checked on the client and on every call, sent on statement calls)
  // and a first page answered 1108 as an empty list (10,585 B before, 10,745 B after).
  // 10.95 kB since issue 36: every secret's base64 and base64url forms are redacted too, whole and inside a
  // longer encoded text (10,909 B with both).
  // 11.25 kB since issue 37: every statement attempt may take from a per-provider rate budget, and a 429 pauses
  // the provider (11,202 B); one home per helper (the checks module, typed error codes) 11,269 B.
  // 11.7 kB since the request path was cut into named steps (its types, the token step, one attempt, the retry
  // decision, one bounded body reader) and each client carries its own sender: 11,663 B.
  { name: "typical use of the main entry", entry: TYPICAL_USE, limit: 11_700 },
  { name: "typical use of the webhooks entry", entry: webhooksUse, limit: 10_000 },
];

// kB = 1000 bytes, as the benchmarks report them.
const kB = (n) => (n / 1000).toFixed(2);
let failed = 0;
for (const { name, entry, limit } of budgets) {
  try {
    const { minBytes, gzipBytes, lazyGzipBytes, nodeBuiltins } = await measureEntry(entry, { resolveDir: client, alias });
    const bad = nodeBuiltins.length > 0 || (limit !== undefined && gzipBytes > limit);
    if (bad) failed++;
    console.log(
      `${bad ? "✘" : "✔"} ${name}: ${(minBytes / 1000).toFixed(1)} kB min, ${kB(gzipBytes)} kB (${gzipBytes} B) min+gzip` +
        (limit ? ` (budget ${limit / 1000} kB)` : "") +
        (lazyGzipBytes ? `; loaded on demand: ${kB(lazyGzipBytes)} kB min+gzip` : "") +
        (nodeBuiltins.length ? ` — Node built-ins: ${nodeBuiltins.join(", ")}` : ""),
    );
  } catch (error) {
    failed++;
    console.log(`✘ ${name}: does not bundle for the browser\n${error.message}`);
  }
}
process.exit(failed ? 1 : 0);
