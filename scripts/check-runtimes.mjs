#!/usr/bin/env node
// Runtime matrix: the Node test projects (vitest projects `client` and `mock`)
// on newer Node majors than the one running the check (Node 20). Each Node is
// an npm package — the registry is the only network this project may rely on —
// cached under node_modules/.cache/fdxkit-node/<major>, so only the first run
// downloads (about 6 s and 190 MB each).
//
//   node scripts/check-runtimes.mjs [--out-dir DIR] [MAJOR ...]   (default: 22 24)
//
// Writes DIR/node-<major>.json (vitest's JSON report) and DIR/runtimes.json
// (one entry per runtime: { major, version, ok, report, error }) for
// scripts/check.mjs, and prints one line per runtime. Exits non-zero when a
// runtime could not be installed or any of its tests failed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureNode } from "./node-major.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const vitestBin = path.join(root, "node_modules", "vitest", "vitest.mjs");
const projects = ["client", "mock"];

const args = process.argv.slice(2);
let outDir = path.join(root, ".vitest-results", "runtimes");
const majors = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--out-dir") outDir = path.resolve(args[++i]);
  else if (/^\d+$/.test(args[i])) majors.push(args[i]);
  else {
    console.error(`unknown argument ${args[i]}\nusage: check-runtimes.mjs [--out-dir DIR] [MAJOR ...]`);
    process.exit(2);
  }
}
if (majors.length === 0) majors.push(...(process.env.FDXKIT_RUNTIMES ?? "22,24").split(",").filter(Boolean));

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const results = [];
for (const major of majors) {
  const entry = { major, version: undefined, ok: false, report: undefined, error: undefined };
  results.push(entry);
  const started = Date.now();
  try {
    const { bin, version, cached } = ensureNode(major);
    entry.version = version;
    const report = path.join(outDir, `node-${major}.json`);
    console.log(`\n▷ Node ${version}${cached ? " (cached)" : ""}: vitest run ${projects.map((p) => `--project ${p}`).join(" ")}`);
    const run = spawnSync(
      bin,
      [vitestBin, "run", ...projects.flatMap((p) => ["--project", p]), "--reporter=dot", "--reporter=json", `--outputFile.json=${report}`],
      {
        cwd: root,
        stdio: "inherit",
        env: {
          ...process.env,
          // Anything the tests spawn as `node` is this runtime too.
          PATH: `${path.dirname(bin)}${path.delimiter}${process.env.PATH ?? ""}`,
          // Only Node projects here: the browser projects need not even be configured.
          FDXKIT_SKIP_BROWSER: "1",
        },
      },
    );
    if (existsSync(report)) {
      entry.report = report;
      const { numPassedTests, numFailedTests, numTotalTests } = JSON.parse(readFileSync(report, "utf8"));
      entry.passed = numPassedTests;
      entry.failed = numFailedTests;
      entry.ok = run.status === 0 && numFailedTests === 0 && numTotalTests > 0;
      if (!entry.ok && numFailedTests === 0) entry.error = numTotalTests === 0 ? "no tests ran" : `vitest exited with ${run.status}`;
    } else {
      entry.error = `no report (vitest exited with ${run.status ?? run.signal})`;
    }
  } catch (error) {
    entry.error = error instanceof Error ? error.message : String(error);
  }
  entry.seconds = Math.round((Date.now() - started) / 100) / 10;
}
writeFileSync(path.join(outDir, "runtimes.json"), JSON.stringify(results, null, 2));

console.log("\nRuntime matrix:");
for (const r of results) {
  const counts = r.report ? `${r.passed} passed, ${r.failed} failed` : "not run";
  console.log(`  ${r.ok ? "✔" : "✘"} Node ${r.version ?? r.major}: ${counts} (${r.seconds} s)${r.error ? ` — ${r.error}` : ""}`);
}
process.exit(results.every((r) => r.ok) ? 0 : 1);
