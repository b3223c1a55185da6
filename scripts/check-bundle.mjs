#!/usr/bin/env node
// Browser-entry hygiene and size budgets, measured on the built packages.
// Each entry is bundled for the browser with nothing external: a Node
// built-in anywhere in its graph fails the bundle. Sizes are min + gzip -9 of
// what loads up front: the entry chunk and every chunk it imports statically.
// Chunks behind a dynamic import() (opt-in features such as response
// validation) load only when used and are reported apart.
import { build } from "esbuild";
import { gzipSync } from "node:zlib";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const client = path.join(root, "packages/client");

/** What a typical app imports: a client, statements paged and downloaded, errors branched on. */
const typicalUse = `
import { createClient, FdxApiError, FdxErrorCode } from "@fdxkit/client";
const client = createClient({ baseUrl: location.origin, token: () => sessionStorage.getItem("t") ?? "" });
export async function run() {
  try {
    for await (const s of client.statements.list({ providerId: "p", accountId: "a", limit: 50 })) {
      const doc = await client.statements.download(s);
      document.body.append(URL.createObjectURL(await doc.blob()));
    }
  } catch (e) {
    if (e instanceof FdxApiError && e.code === FdxErrorCode.Unauthorized) location.reload();
    throw e;
  }
}
`;
const webhooksUse = `
import { createWebhookHandler, isConsentNotification } from "@fdxkit/client/webhooks";
export default createWebhookHandler({ onNotification: async (n) => { if (isConsentNotification(n)) console.log(n.notificationPayload.id); } });
`;

const budgets = [
  { name: "main entry, whole", entry: { file: path.join(client, "dist/index.js") }, limit: undefined },
  { name: "webhooks entry, whole", entry: { file: path.join(client, "dist/webhooks.js") }, limit: undefined },
  { name: "typical use of the main entry", entry: { contents: typicalUse }, limit: 12 * 1024 },
  { name: "typical use of the webhooks entry", entry: { contents: webhooksUse }, limit: 10 * 1024 },
];

let failed = 0;
for (const { name, entry, limit } of budgets) {
  try {
    const result = await build({
      ...(entry.file
        ? { entryPoints: [entry.file] }
        : { stdin: { contents: entry.contents, resolveDir: client, loader: "ts" } }),
      bundle: true,
      minify: true,
      splitting: true,
      outdir: "/virtual-out",
      format: "esm",
      platform: "browser",
      write: false,
      metafile: true,
      logLevel: "silent",
      alias: {
        "@fdxkit/client/webhooks": path.join(client, "dist/webhooks.js"),
        "@fdxkit/client": path.join(client, "dist/index.js"),
      },
    });
    const nodeInputs = Object.keys(result.metafile.inputs).filter((i) => /(^|\/)node:|^(fs|path|stream|http|crypto)$/.test(i));
    const outputs = result.metafile.outputs;
    const files = new Map(result.outputFiles.map((f) => [path.relative(process.cwd(), f.path), f.contents]));
    const entryOut = Object.keys(outputs).find((o) => outputs[o].entryPoint);
    const upFront = new Set();
    const visit = (o) => {
      if (upFront.has(o)) return;
      upFront.add(o);
      for (const i of outputs[o].imports) if (i.kind === "import-statement" && outputs[i.path]) visit(i.path);
    };
    visit(entryOut);
    const size = (list) => list.reduce((n, o) => n + (files.get(o)?.length ?? 0), 0);
    const gzSize = (list) => list.reduce((n, o) => n + gzipSync(files.get(o) ?? new Uint8Array(), { level: 9 }).length, 0);
    const initial = [...upFront].filter((o) => o.endsWith(".js"));
    const lazy = Object.keys(outputs).filter((o) => o.endsWith(".js") && !upFront.has(o));
    const bytes = { length: size(initial) };
    const gz = gzSize(initial);
    const over = limit !== undefined && gz > limit;
    if (nodeInputs.length || over) failed++;
    console.log(
      `${over || nodeInputs.length ? "✘" : "✔"} ${name}: ${(bytes.length / 1024).toFixed(1)} kB min, ${(gz / 1024).toFixed(2)} kB min+gzip` +
        (limit ? ` (budget ${(limit / 1024).toFixed(0)} kB)` : "") +
        (lazy.length ? `; loaded on demand: ${(gzSize(lazy) / 1024).toFixed(2)} kB min+gzip` : "") +
        (nodeInputs.length ? ` — Node built-ins: ${nodeInputs.join(", ")}` : ""),
    );
  } catch (error) {
    failed++;
    console.log(`✘ ${name}: does not bundle for the browser\n${error.message}`);
  }
}
process.exit(failed ? 1 : 0);
