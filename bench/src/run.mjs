#!/usr/bin/env node
// Runs every benchmark in one go and writes the results.
//
//   node src/run.mjs                 full run: BENCHMARKS.md (repo root) and bench/results.json
//   node src/run.mjs --smoke         tiny sizes, seconds; writes nothing unless --out is given
//   node src/run.mjs --out DIR       write BENCHMARKS.md and results.json into DIR instead
//   node src/run.mjs --only overhead,pagination,download,bundle,import,export,webhooks,webhooks-tls,connections,connections-refresh,store-seal,cli-store,rate-budget
//   node src/run.mjs --node 24       the same, on another Node major (installed from the npm registry on first use)
//   node src/run.mjs --only overhead,pagination --update
//                                    re-runs those sections and writes them into this Node's last full run
//                                    (its BENCHMARKS.md says which sections were re-run, and when)
//
// `pnpm bench` runs it twice: on Node 24 (the Node most users run; BENCHMARKS.md and bench/results.json) and
// on the Node running it (bench/node-<major>/), the project's lowest supported one in CI.
//
// The SDK is measured as published: the built package (packages/client/dist).
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { spawnSync } from "node:child_process";
import { runBundle } from "./bundle.mjs";
import { runCliStore } from "./cli-store.mjs";
import { runConnectionsHotPath } from "./connections.mjs";
import { runConnectionsRefresh } from "./connections-refresh.mjs";
import { runDownload } from "./download.mjs";
import { runGzipBomb } from "./gzip-bomb.mjs";
import { runExport } from "./export.mjs";
import { runImportTime } from "./import-time.mjs";
import { runOverhead } from "./overhead.mjs";
import { runPagination } from "./pagination.mjs";
import { runRateBudget } from "./rate-budget.mjs";
import { checkTargets, printSummary, toMarkdown } from "./report.mjs";
import { startServer } from "./server.mjs";
import { runWebhookReceive } from "./webhook-receive.mjs";
import { runWebhookTls } from "./webhook-tls.mjs";
import { runStoreSeal } from "./store-seal.mjs";

const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = path.resolve(benchDir, "..");

export const SIZES = {
  full: {
    overhead: { warmup: 300, rounds: 100, callsPerRound: 40 },
    pagination: { pages: 300, perPage: 50, rounds: 40, slowRounds: 3, workMs: 2 },
    download: { bytes: 256 * 1024 * 1024, timeRuns: 7, memoryRuns: 3 },
    gzipBomb: { inflatedBytes: 1024 * 1024 * 1024 },
    importTime: { runs: 7 },
    export: { runs: 3, accounts: 3, rateLimit: { limit: 20, windowMs: 1000 }, latencyMs: 20 },
    // Many short rounds, interleaved: on a shared machine a load spike then hits a few rounds of both, not one contender.
    webhooks: { warmupMs: 2000, rounds: 16, roundMs: 400, concurrency: 8 },
    webhooksTls: { warmupMs: 1000, rounds: 10, roundMs: 400, concurrency: 8 },
    connections: { warmup: 200, rounds: 60, callsPerRound: 20 },
    connectionsRefresh: { connections: 1000, processes: 4, concurrency: 16, poolSize: 10, sequential: 200 },
    storeSeal: { warmup: 500, rounds: 30, opsPerRound: 100 },
    cliStore: { runs: 15, coldRuns: 1, plainRuns: 3 },
    // Two years of the seeded accounts (the export's default range): shard 4 has 129 statements, shard 3 has 22.
    rateBudget: { range: { from: "2024-11-01", to: "2026-10-31" }, modes: ["none", "memory", "postgres", "postgres-fifth"], idleMs: 5000 },
  },
  smoke: {
    overhead: { warmup: 5, rounds: 2, callsPerRound: 5 },
    pagination: { pages: 3, perPage: 5, rounds: 1, slowRounds: 1, workMs: 1 },
    download: { bytes: 256 * 1024, timeRuns: 1, memoryRuns: 1 },
    gzipBomb: { inflatedBytes: 64 * 1024 * 1024 },
    importTime: { runs: 1 },
    export: { runs: 1, accounts: 1, rateLimit: { limit: 20, windowMs: 1000 }, latencyMs: 20, warmUp: false },
    // Node only: a smoke run installs no runtime.
    webhooks: { warmupMs: 50, rounds: 2, roundMs: 50, concurrency: 2, runtimes: ["node"] },
    webhooksTls: { warmupMs: 50, rounds: 1, roundMs: 50, concurrency: 2 },
    connections: { warmup: 5, rounds: 2, callsPerRound: 5 },
    connectionsRefresh: { connections: 20, processes: 2, concurrency: 4, poolSize: 4, sequential: 5 },
    storeSeal: { warmup: 5, rounds: 2, opsPerRound: 5 },
    // No initdb in a smoke run: the template is made once and reused, the plain PGlite.create runs are left out.
    cliStore: { runs: 1, coldRuns: 0, plainRuns: 0 },
    // A month, and no PostgreSQL server: the harness runs, no figure counts.
    rateBudget: { range: { from: "2026-10-01", to: "2026-10-31" }, modes: ["none", "memory"], idleMs: 300 },
  },
};

/** The Node whose run is BENCHMARKS.md (the Node most users run); a full run on another writes bench/node-<major>/. */
const HEADLINE_NODE = "24";
/** The other Node `pnpm bench` runs on (the lowest supported). */
const OTHER_NODES = ["20"];

export const SECTIONS = [
  "overhead",
  "pagination",
  "download",
  "bundle",
  "import",
  "export",
  "webhooks",
  "webhooks-tls",
  "connections",
  "connections-refresh",
  "store-seal",
  "cli-store",
  "rate-budget",
];

/** Runs the selected sections; resolves with the results object. */
export async function runBenchmarks({ smoke = false, only = SECTIONS, log = console.log } = {}) {
  if (!existsSync(path.join(repoRoot, "packages/client/dist/index.js"))) {
    throw new Error("packages/client/dist is missing: build the client first (pnpm --filter @fdxkit/client run build)");
  }
  const sizes = smoke ? SIZES.smoke : SIZES.full;
  const started = performance.now();
  const cpus = os.cpus();
  const results = {
    meta: {
      date: new Date().toISOString(),
      node: process.versions.node,
      platform: `${os.platform()} ${os.arch()}`,
      cpu: cpus[0]?.model?.trim() ?? "unknown",
      cpus: cpus.length,
      loadAverageAtStart: os.loadavg().map((n) => Math.round(n * 100) / 100),
      smoke,
      sizes,
      durationMs: 0,
    },
  };
  const server = await startServer({ pages: sizes.pagination.pages, perPage: sizes.pagination.perPage });
  try {
    if (only.includes("overhead")) {
      log("▶ per-call overhead");
      results.overhead = await runOverhead({ origin: server.origin, ...sizes.overhead });
    }
    if (only.includes("pagination")) {
      log("▶ pagination");
      results.pagination = await runPagination({ origin: server.origin, ...sizes.pagination });
    }
    if (only.includes("download")) {
      log(`▶ download (${sizes.download.bytes / 1024 / 1024} MiB, one process per run)`);
      results.download = await runDownload({ origin: server.origin, ...sizes.download });
      log(`▶ gzip bomb on a JSON call (${sizes.gzipBomb.inflatedBytes / 1024 / 1024} MiB inflated)`);
      results.gzipBomb = await runGzipBomb(sizes.gzipBomb);
    }
  } finally {
    await server.close();
  }
  if (only.includes("import")) {
    log("▶ cold import time");
    results.importTime = await runImportTime(sizes.importTime);
  }
  if (only.includes("export")) {
    const e = sizes.export;
    log(`▶ bulk export (${e.accounts} account(s), sandbox rate limit ${e.rateLimit.limit} per ${e.rateLimit.windowMs} ms, ${e.latencyMs} ms latency)`);
    results.export = await runExport(e);
  }
  if (only.includes("webhooks")) {
    log("▶ webhook receive throughput per runtime (handler vs bare JSON parse)");
    results.webhooks = await runWebhookReceive({ ...sizes.webhooks, log });
  }
  if (only.includes("webhooks-tls")) {
    log("▶ webhook receive throughput, mutual TLS vs plain TLS (Node)");
    results.webhooksTls = await runWebhookTls({ ...sizes.webhooksTls, log });
  }
  if (only.includes("connections")) {
    log("▶ connections.token(id) on the hot path vs a static token (a statement page from the sandbox)");
    results.connections = await runConnectionsHotPath(sizes.connections);
  }
  if (only.includes("connections-refresh")) {
    const c = sizes.connectionsRefresh;
    log(`▶ ${c.connections} connections refreshed by ${c.processes} processes on PostgreSQL`);
    results.connectionsRefresh = await runConnectionsRefresh(c);
  }
  if (only.includes("store-seal")) {
    log("▶ the re-seal per refresh: compareAndSet and get through encryptConnectionStore vs the bare memory store");
    results.storeSeal = await runStoreSeal(sizes.storeSeal);
  }
  if (only.includes("cli-store")) {
    log("▶ the CLI's embedded store: start-up of a command, a new store, an in-memory PGlite");
    results.cliStore = await runCliStore(sizes.cliStore);
  }
  if (only.includes("rate-budget")) {
    log("▶ one rate budget per provider: 4 export shards and a web process against a provider's 20 calls a second");
    results.rateBudget = await runRateBudget(sizes.rateBudget);
  }
  if (only.includes("bundle")) {
    log("▶ bundle size");
    results.bundle = await runBundle();
  }
  results.meta.durationMs = Math.round(performance.now() - started);
  results.targets = checkTargets(results);
  return results;
}

export async function writeResults(results, { markdownFile, jsonFile }) {
  await mkdir(path.dirname(markdownFile), { recursive: true });
  await mkdir(path.dirname(jsonFile), { recursive: true });
  await writeFile(markdownFile, toMarkdown(results));
  await writeFile(jsonFile, `${JSON.stringify(results, null, 2)}\n`);
}

async function main() {
  const { values } = parseArgs({
    options: {
      smoke: { type: "boolean", default: false },
      out: { type: "string" },
      only: { type: "string" },
      node: { type: "string" },
      update: { type: "boolean", default: false },
    },
  });
  if (values.node && values.node !== process.versions.node.split(".")[0]) {
    // The same run on another Node: this script again, under that binary, with the other flags as given.
    const { ensureNode } = await import("../../scripts/node-major.mjs");
    const { bin, version } = ensureNode(values.node);
    console.log(`▷ on Node ${version} (${path.relative(process.cwd(), bin)})`);
    const args = process.argv.slice(2).filter((arg, i, all) => arg !== "--node" && all[i - 1] !== "--node" && !arg.startsWith("--node="));
    const child = spawnSync(bin, [fileURLToPath(import.meta.url), ...args], {
      stdio: "inherit",
      // Whatever the benchmarks spawn as `node` (the server, one process per download run) is that Node too.
      env: { ...process.env, PATH: `${path.dirname(bin)}${path.delimiter}${process.env.PATH ?? ""}` },
    });
    process.exit(child.status ?? 1);
  }
  const only = values.only ? values.only.split(",").map((s) => s.trim()) : SECTIONS;
  for (const s of only) if (!SECTIONS.includes(s)) throw new Error(`unknown section ${s} (known: ${SECTIONS.join(", ")})`);
  let results = await runBenchmarks({ smoke: values.smoke, only });
  printSummary(results);
  let files;
  const major = process.versions.node.split(".")[0];
  const own = () =>
    major === HEADLINE_NODE
      ? { markdownFile: path.join(repoRoot, "BENCHMARKS.md"), jsonFile: path.join(benchDir, "results.json") }
      : { markdownFile: path.join(benchDir, `node-${major}`, "BENCHMARKS.md"), jsonFile: path.join(benchDir, `node-${major}`, "results.json") };
  if (values.update && !values.smoke && only.length < SECTIONS.length) {
    // The sections run now, written into this Node's last full run; the report says which and when.
    files = own();
    const previous = JSON.parse(await readFile(files.jsonFile, "utf8"));
    if (previous.meta.node.split(".")[0] !== major) throw new Error(`${files.jsonFile} is a run on Node ${previous.meta.node}, not Node ${major}`);
    const fresh = Object.fromEntries(Object.entries(results).filter(([key]) => key !== "meta" && key !== "targets"));
    results = {
      ...previous,
      ...fresh,
      meta: { ...previous.meta, updated: [...(previous.meta.updated ?? []), { date: results.meta.date, node: results.meta.node, sections: only }] },
    };
    results.targets = checkTargets(results);
  } else if (values.out) files = { markdownFile: path.resolve(values.out, "BENCHMARKS.md"), jsonFile: path.resolve(values.out, "results.json") };
  else if (!values.smoke && only.length === SECTIONS.length) {
    if (major === HEADLINE_NODE) {
      files = { markdownFile: path.join(repoRoot, "BENCHMARKS.md"), jsonFile: path.join(benchDir, "results.json") };
      // The other runs `pnpm bench` makes, linked from the headline report.
      results.meta.otherRuns = OTHER_NODES.map((m) => ({ major: m, file: `bench/node-${m}/BENCHMARKS.md` }));
    } else {
      const dir = path.join(benchDir, `node-${major}`);
      files = { markdownFile: path.join(dir, "BENCHMARKS.md"), jsonFile: path.join(dir, "results.json") };
      results.meta.resultsFile = `bench/node-${major}/results.json`;
    }
  }
  if (files) {
    await writeResults(results, files);
    console.log(
      `\nWrote ${path.relative(process.cwd(), files.markdownFile)} and ${path.relative(process.cwd(), files.jsonFile)} (${Math.round(results.meta.durationMs / 1000)} s)`,
    );
  } else {
    console.log(`\nNothing written (${values.smoke ? "smoke run" : "partial run"}; --out DIR writes the files)`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
