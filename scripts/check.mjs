#!/usr/bin/env node
// Every check of the project, in order, with one closing line
// `N passed, N failed` that sums the test runs (vitest's tests on Node 20,
// the Node test projects again on Node 22 and 24, each runtime of the runtime
// matrix, plus each gate — coverage included — counted as one test) so a run
// that tested nothing shows.
//
// FDXKIT_RUNTIMES=22 (or empty: none) narrows the runtime matrix for a quick
// local run; CI runs the default, 22 and 24.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CHROMIUM_PATH as chromium } from "./chromium.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const resultsDir = path.join(root, ".vitest-results");
const pnpm = process.env.PNPM ?? "pnpm";

/** Gates: a failure stops nothing, so one run reports everything that is wrong. */
const gates = [
  ["spec lint", `${pnpm} run lint:specs`],
  ["generated types up to date", `${pnpm} run generate:check`],
  ["build", `${pnpm} run build`],
  ["API reference: TypeDoc, warnings as errors", `${pnpm} run docs:api`],
  ["typecheck", `${pnpm} run typecheck`],
  ["lint and format: 0 warnings", `${pnpm} run lint`],
  ["browser bundles: no Node built-ins, size budgets", "node scripts/check-bundle.mjs"],
  ["attacks: every hostile server replayed against the built client, outcomes as committed", "node scripts/attacks.mjs --check"],
  ["package gates: publint, attw (on the packed tarball)", "node scripts/check-packages.mjs"],
  ["fresh consumer app: packed tarballs, ESM and CJS", "node scripts/check-consumer.mjs"],
  ["docs: snippets typecheck under strict, marked commands run, sample outputs match, relative links resolve", "node scripts/check-docs.mjs"],
];

let passed = 0;
let failed = 0;
const failures = [];

function run(label, command) {
  console.log(`\n▶ ${label}: ${command}`);
  const started = Date.now();
  const result = spawnSync(command, { cwd: root, stdio: "inherit", shell: true, env: process.env });
  const ok = result.status === 0;
  console.log(`${ok ? "✔" : "✘"} ${label} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return ok;
}

// The browser tests drive Debian's Chromium; a fresh machine may not have it.
if (!existsSync(chromium) && process.getuid?.() === 0 && spawnSync("which", ["apt-get"]).status === 0) {
  run("install Chromium (Debian package)", "apt-get update -qq && apt-get install -y -qq chromium");
}
if (!existsSync(chromium)) {
  console.log(`\n! ${chromium} not found: browser tests skipped (install Debian's chromium package to run them).`);
  process.env.FDXKIT_SKIP_BROWSER = "1";
  // CI must run them: there a missing browser is a failure, not a skip.
  if (process.env.CI) {
    failed++;
    failures.push("browser tests (no Chromium)");
  }
}

for (const [label, command] of gates) {
  if (run(label, command)) passed++;
  else {
    failed++;
    failures.push(label);
  }
}

rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });
const resultsFile = path.join(resultsDir, "vitest.json");
const coverageSummary = path.join(root, "coverage", "coverage-summary.json");
rmSync(coverageSummary, { force: true });
// One run of every project, with V8 coverage of packages/client/src and
// packages/mock/src (thresholds in vitest.config.ts; vitest exits non-zero
// below them).
const testsOk = run("tests (with coverage)", `${pnpm} exec vitest run --coverage --reporter=default --reporter=json --outputFile.json=${resultsFile}`);

/** Coverage figures against the thresholds; a gate of its own. */
const coverageMin = { lines: 90, branches: 90 };
let coverageOk = false;
try {
  const total = JSON.parse(readFileSync(coverageSummary, "utf8")).total;
  coverageOk = Object.entries(coverageMin).every(([key, min]) => total[key].pct >= min);
  const figures = ["lines", "branches", "functions", "statements"].map((key) => `${key} ${total[key].pct}%`).join(", ");
  console.log(
    `${coverageOk ? "✔" : "✘"} coverage of packages/client/src and packages/mock/src: ${figures} (minimum: lines ${coverageMin.lines}%, branches ${coverageMin.branches}%)`,
  );
} catch {
  console.log("✘ coverage: no coverage/coverage-summary.json");
}
if (coverageOk) passed++;
else {
  failed++;
  failures.push("coverage thresholds");
}

try {
  const report = JSON.parse(readFileSync(resultsFile, "utf8"));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  for (const name of failedTests(report)) failures.push(`test: ${name}`);
  if (report.numTotalTests === 0) {
    failed++;
    failures.push("tests (none ran)");
  }
  // Below the coverage thresholds vitest exits 1 with every test green: counted above already.
  if (!testsOk && report.numFailedTests === 0 && coverageOk) {
    failed++;
    failures.push("tests (runner failed)");
  }
} catch {
  failed++;
  failures.push("tests (no report)");
}

// Runtime matrix: the Node test projects again on Node 22 and 24 (from the npm registry, cached).
const runtimesDir = path.join(resultsDir, "runtimes");
run("runtime matrix: Node test projects on Node 22 and 24", `node scripts/check-runtimes.mjs --out-dir ${runtimesDir}`);
try {
  const runtimes = JSON.parse(readFileSync(path.join(runtimesDir, "runtimes.json"), "utf8"));
  for (const r of runtimes) {
    const label = `Node ${r.version ?? r.major}`;
    if (r.report) {
      passed += r.passed;
      failed += r.failed;
    }
    // Not installed, no report, nothing ran, or the runner failed with every test green.
    if (!r.ok && !(r.failed > 0)) {
      failed++;
      failures.push(`${label} (${r.error ?? "failed"})`);
    } else if (r.failed > 0) {
      failures.push(`tests on ${label}`);
      try {
        for (const name of failedTests(JSON.parse(readFileSync(r.report, "utf8")))) failures.push(`test on ${label}: ${name}`);
      } catch {
        // The count above stands; the names are a help only.
      }
    }
  }
} catch {
  failed++;
  failures.push("runtime matrix (no report)");
}

// Runtime matrix: one scenario in Node, Bun, Deno, workerd, edge-runtime, Chromium, Firefox and
// WebKitGTK; each runtime counts as one test (a runtime that cannot start fails, in CI never skips).
const matrixDir = path.join(resultsDir, "matrix");
run("runtime matrix: the scenario in every runtime", `node scripts/check-runtime-matrix.mjs --out-dir ${matrixDir}`);
try {
  const { results } = JSON.parse(readFileSync(path.join(matrixDir, "matrix.json"), "utf8"));
  if (results.length === 0) {
    failed++;
    failures.push("runtime matrix (no runtime ran)");
  }
  for (const r of results) {
    if (r.skipped) console.log(`! runtime matrix: ${r.runtime} skipped (${r.error})`);
    else if (r.ok) passed++;
    else {
      failed++;
      failures.push(`runtime matrix: ${r.runtime}`);
    }
  }
} catch {
  failed++;
  failures.push("runtime matrix (no report)");
}

// One line each, at the end, where a CI log cut to its tail still shows them.
if (failures.length) console.log(`\nFailed:\n${failures.map((f) => `  - ${f}`).join("\n")}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

/** "file › test name" of each failed test in a vitest JSON report. */
function failedTests(report) {
  return report.testResults.flatMap((file) =>
    file.assertionResults.filter((a) => a.status === "failed").map((a) => `${path.relative(root, file.name)} › ${a.fullName}`),
  );
}
