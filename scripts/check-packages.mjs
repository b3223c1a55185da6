#!/usr/bin/env node
// Package gates for every published package: publint clean, and
// @arethetypeswrong/cli --pack green (types resolve for ESM and CJS users).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { readFileSync } from "node:fs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const packages = ["packages/client", "packages/mock", "packages/cli"];
let failed = 0;

for (const dir of packages) {
  const pkgDir = path.join(root, dir);
  const pkg = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8"));
  const { messages } = await publint({ pkgDir, level: "suggestion", strict: true, pack: "npm" });
  for (const m of messages) console.log(`  publint ${m.type}: ${formatMessage(m, pkg)}`);
  const publintOk = messages.length === 0;
  console.log(`${publintOk ? "✔" : "✘"} publint ${pkg.name}`);

  const attw = spawnSync(path.join(root, "node_modules/.bin/attw"), ["--pack", pkgDir, "--format", "table-flipped"], {
    cwd: root,
    encoding: "utf8",
  });
  const attwOk = attw.status === 0;
  if (!attwOk) console.log(attw.stdout, attw.stderr);
  console.log(`${attwOk ? "✔" : "✘"} attw --pack ${pkg.name}`);
  failed += Number(!publintOk) + Number(!attwOk);
}
process.exit(failed ? 1 : 0);
