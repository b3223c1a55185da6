#!/usr/bin/env node
// A fresh consumer app: packs the published packages as npm would ship them,
// installs the tarballs with npm into a temporary app outside the workspace,
// then typechecks and runs a small ESM and a small CJS program against the
// sandbox, and the installed bins (`fdxkit`, `fdxkit-mock`). Proves what users
// `npm install` works, not only the workspace.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const app = mkdtempSync(path.join(tmpdir(), "fdxkit-consumer-"));
const pnpm = (process.env.PNPM ?? "pnpm").split(" ");
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });

try {
  for (const dir of ["packages/client", "packages/mock", "packages/cli", "packages/postgres"]) {
    run(pnpm[0], [...pnpm.slice(1), "pack", "--pack-destination", app], path.join(root, dir));
  }
  const tarballs = readdirSync(app).filter((f) => f.endsWith(".tgz"));
  writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "consumer", private: true }, null, 2));
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs.map((t) => `./${t}`)], app);

  writeFileSync(
    path.join(app, "esm.mts"),
    `import { createClient, FdxApiError, FdxError, FdxErrorCode, type Statement } from "@fdxkit/client";
import { FdxWebhookError, parseNotification } from "@fdxkit/client/webhooks";
import { saveStatement } from "@fdxkit/client/node";
import { startMockServer } from "@fdxkit/mock";
import { connectionsTableSql, FdxPostgresError, postgresConnectionStore } from "@fdxkit/postgres";

// @fdxkit/postgres loads without its optional peers (pg, PGlite): it only calls the db it is given.
const refusedTable = (() => { try { postgresConnectionStore({ query: async () => ({ rows: [] }) }, { table: "no such" }); } catch (e) { return e; } })();
if (!connectionsTableSql().includes('"fdxkit_connections"') || !(refusedTable instanceof FdxError)) throw new Error("postgres");
if (!(new FdxPostgresError("m", { code: undefined, operation: "get", table: "t" }) instanceof FdxError)) throw new Error("FdxPostgresError");
const mock = await startMockServer({ port: 0 });
try {
  const client = createClient({ baseUrl: mock.baseUrl, productsUrl: mock.productsUrl, token: mock.token });
  const consent = await client.consents.get(mock.seed.consents[0]!.id!);
  const statements: Statement[] = await client.statements
    .list({ providerId: mock.seed.providerId, accountId: mock.seed.accounts[0]!.accountId })
    .toArray({ max: 3 });
  const document = await client.statements.download(statements[0]!);
  const bytes = new Uint8Array(await document.arrayBuffer());
  const bad = await createClient({ baseUrl: mock.baseUrl, token: "wrong" }).subscriptions.list().catch((e: unknown) => e);
  if (!(bad instanceof FdxApiError) || bad.code !== FdxErrorCode.Unauthorized) throw new Error("expected 1205");
  if (typeof saveStatement !== "function") throw new Error("entries");
  // Runs the webhook schemas (zod, bundled into dist) from the installed package.
  const hook = { category: "CONSENT", type: "CONSENT_REVOKED", notificationPayload: { id: "c-1", idType: "CONSENT" } };
  if (parseNotification(JSON.stringify(hook)).notificationPayload.id !== "c-1") throw new Error("webhooks");
  const refused = (() => { try { parseNotification({ ...hook, category: 7 }); } catch (e) { return e; } })();
  if (!(refused instanceof FdxWebhookError) || refused.issues[0]?.path !== "category") throw new Error("expected FdxWebhookError");
  console.log("esm ok", consent.status, statements.length, new TextDecoder().decode(bytes.slice(0, 5)));
} finally {
  await mock.close();
}
`,
  );
  writeFileSync(
    path.join(app, "cjs.cts"),
    `import { createClient, FdxError, FdxNotFoundError } from "@fdxkit/client";
import { parseNotification } from "@fdxkit/client/webhooks";
import { startMockServer } from "@fdxkit/mock";
import { postgresDedupe } from "@fdxkit/postgres";

async function main(): Promise<void> {
  const mock = await startMockServer({ port: 0 });
  try {
    const client = createClient({ baseUrl: mock.baseUrl, token: mock.token });
    const error = await client.maintenance.get("no-such-notice").catch((e: unknown) => e);
    if (!(error instanceof FdxNotFoundError) || !(error instanceof FdxError)) throw new Error("expected FdxNotFoundError");
    const hook = parseNotification({ category: "MAINTENANCE", type: "SERVICE", notificationPayload: { id: "m-1", idType: "MAINTENANCE" } });
    if (hook.notificationPayload.id !== "m-1") throw new Error("webhooks");
    if (typeof postgresDedupe !== "function") throw new Error("postgres");
    console.log("cjs ok", error.status, error.code);
  } finally {
    await mock.close();
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
`,
  );
  writeFileSync(
    path.join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        types: ["node"],
        lib: ["ES2022", "DOM"],
        outDir: "out",
      },
      files: ["esm.mts", "cjs.cts"],
    }),
  );
  // The workspace's TypeScript and Node types, so the app needs nothing beyond the tarballs.
  const tsc = path.join(root, "node_modules/typescript/bin/tsc");
  run("ln", ["-s", path.join(root, "node_modules/@types"), path.join(app, "node_modules/@types")], app);
  run(process.execPath, [tsc, "-p", "tsconfig.json"], app);
  process.stdout.write(run(process.execPath, ["out/esm.mjs"], app));
  process.stdout.write(run(process.execPath, ["out/cjs.cjs"], app));
  // The bins are committed shims (bin/*.js) that load dist/cli.js: run both as npm linked them.
  const bin = (name, args) => run(path.join(app, "node_modules/.bin", name), args, app);
  const mockHelp = bin("fdxkit-mock", ["--help"]);
  if (!mockHelp.includes("Usage: fdxkit-mock")) throw new Error(`fdxkit-mock --help printed:\n${mockHelp}`);
  const cliHelp = bin("fdxkit", ["--help"]);
  if (!cliHelp.includes("Usage: fdxkit") || !cliHelp.includes("statements")) throw new Error(`fdxkit --help printed:\n${cliHelp}`);
  console.log("bins ok: fdxkit-mock --help, fdxkit --help");
  console.log(`✔ consumer app (${tarballs.join(", ")}) typechecks and runs as ESM and CJS`);
} finally {
  rmSync(app, { recursive: true, force: true });
}
