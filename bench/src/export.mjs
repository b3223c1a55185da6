// Bulk export against a rate-limited sandbox: `fdxkit statements export` over
// several accounts, as a nightly job runs it, against the real sandbox server
// (@fdxkit/mock) with `rateLimit: { limit: 20, windowMs: 1000 }` and a
// latency per answer.
//
// The figure is how close the export comes to the rate limit's own bound:
// the requests it needs (list pages and downloads, not the 429s) divided by
// the rate allowed. efficiency = bound / wall time; 1 means the provider's
// limit, not the CLI, set the pace (a fixed-window limiter lets the first
// window's burst through at once, so slightly above 1 is possible).
//
// Baseline: the export as it was before the multi-account CLI
// (export-single.mjs), one process per account, one after the other: each
// account's list read page by page, four workers downloading, each retrying
// its own 429s through the client (no shared pause), the client's default
// two retries.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createClient } from "@fdxkit/client";
import { startMockServer } from "@fdxkit/mock";
import { median, ratio, round } from "./stats.mjs";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = path.join(repoRoot, "packages/cli/dist/cli.js");
const SINGLE = fileURLToPath(new URL("./export-single.mjs", import.meta.url));
const TOKEN = "bench.export.token";
const PROVIDER_ID = "sandbox-bank";
// The seed's statements end on 2026-10-31: a fixed range keeps the scenario the same whatever the date.
const FROM = "2024-11-01";
const TO = "2026-10-31";

/** The sandbox of the scenario. `latencyMs` delays every answer (a mock without that option ignores it). */
function sandbox({ rateLimit, latencyMs }) {
  return startMockServer({ port: 0, token: TOKEN, rateLimit, latencyMs });
}

/** Runs a Node script; resolves with its exit code, its stdout parsed as JSON and the wall time of the process. */
function runNode(script, args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => {
      const wallMs = performance.now() - started;
      try {
        resolve({ code, result: JSON.parse(stdout), wallMs, stderr });
      } catch {
        reject(new Error(`${path.basename(script)} exited ${code} without a JSON result:\n${stderr.slice(-2000)}`));
      }
    });
  });
}

/** List pages the export needs: each account's windows, page by page, as the CLI reads them (the provider's default page size). */
async function countPages(mock, accounts, windows) {
  const client = createClient({ baseUrl: mock.baseUrl, productsUrl: mock.productsUrl, token: TOKEN });
  let pages = 0;
  for (const accountId of accounts) {
    for (const w of windows) {
      for await (const _page of client.statements.list({ providerId: PROVIDER_ID, accountId, startTime: w.start, endTime: w.end }).pages()) pages++;
    }
  }
  return pages;
}

async function multiAccountRun(mock, accounts) {
  const out = await mkdtemp(path.join(tmpdir(), "fdxkit-bench-export-"));
  try {
    const flags = accounts.flatMap((a) => ["--account", a]);
    const {
      code,
      result: summary,
      wallMs,
    } = await runNode(CLI, [
      "statements",
      "export",
      "--provider",
      PROVIDER_ID,
      ...flags,
      "--from",
      FROM,
      "--to",
      TO,
      "--out",
      out,
      "--base-url",
      mock.baseUrl,
      "--products-url",
      mock.productsUrl,
      "--token",
      TOKEN,
      "--json",
    ]);
    return {
      code,
      wallMs,
      exportMs: summary.elapsedMs,
      downloaded: summary.downloaded,
      failed: summary.failed.length,
      listed: summary.listed,
      windows: summary.windows,
      rateLimit: summary.rateLimit,
    };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/** The single-account export of before, one process per account, one after the other. */
async function baselineRun(mock, accounts) {
  const out = await mkdtemp(path.join(tmpdir(), "fdxkit-bench-export-base-"));
  const total = { wallMs: 0, exportMs: 0, downloaded: 0, failed: 0, rateLimited: 0 };
  try {
    for (const accountId of accounts) {
      const { result, wallMs } = await runNode(SINGLE, [
        mock.baseUrl,
        mock.productsUrl,
        TOKEN,
        PROVIDER_ID,
        accountId,
        `${FROM}T00:00:00.000Z`,
        `${TO}T23:59:59.999Z`,
        out,
      ]);
      total.wallMs += wallMs;
      total.exportMs += result.elapsedMs;
      total.downloaded += result.downloaded;
      total.failed += result.failed;
      total.rateLimited += result.rateLimited;
    }
    return total;
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/**
 * `runs` interleaved rounds of the CLI export and the baseline; medians.
 * Sizes: `accounts` (the seed's first N), `rateLimit`, `latencyMs`.
 */
export async function runExport({ runs = 3, accounts: accountCount = 3, rateLimit = { limit: 20, windowMs: 1000 }, latencyMs = 20, warmUp = true } = {}) {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the CLI first (pnpm --filter @fdxkit/cli run build)`);
  // One sandbox for every run: its rate-limit window is reset before each, and the PDFs it renders
  // stay cached, so the runs measure the exports and the rate limit rather than the sandbox's PDF rendering.
  const mock = await sandbox({ rateLimit, latencyMs });
  try {
    const accounts = mock.seed.accounts.slice(0, accountCount).map((a) => a.accountId);
    // Warm-up (unmeasured): renders every PDF once, and warms the file cache for Node and the CLI.
    if (warmUp) await multiAccountRun(mock, accounts);

    const cliRuns = [];
    const baseRuns = [];
    for (let i = 0; i < runs; i++) {
      for (const which of i % 2 === 0 ? ["cli", "base"] : ["base", "cli"]) {
        mock.reset();
        if (which === "cli") cliRuns.push(await multiAccountRun(mock, accounts));
        else baseRuns.push(await baselineRun(mock, accounts));
      }
    }

    // The machine's own pace: the same export against a sandbox without a rate limit (PDFs warmed the same way).
    const free = await sandbox({ latencyMs });
    const freeRuns = [];
    try {
      if (warmUp) await multiAccountRun(free, accounts);
      for (let i = 0; i < runs; i++) freeRuns.push(await multiAccountRun(free, accounts));
    } finally {
      await free.close();
    }

    // Requests the job needs, whoever runs it: the list pages plus one download per available statement.
    mock.reset();
    const pages = await countPages(mock, accounts, cliRuns[0].windows);
    const requests = pages + cliRuns[0].downloaded + cliRuns[0].failed;
    const perSecond = rateLimit.limit / (rateLimit.windowMs / 1000);
    const boundMs = (requests / perSecond) * 1000;

    const cliWall = median(cliRuns.map((r) => r.wallMs));
    const cliExport = median(cliRuns.map((r) => r.exportMs));
    const baseWall = median(baseRuns.map((r) => r.wallMs));
    const baseExport = median(baseRuns.map((r) => r.exportMs));
    return {
      accounts: accounts.length,
      statements: cliRuns[0].listed,
      requests,
      pages,
      rateLimit,
      latencyMs,
      runs,
      boundMs: Math.round(boundMs),
      contenders: [
        {
          name: "fdxkit statements export, all accounts in one run (default concurrency 4)",
          sdk: true,
          wallMs: Math.round(cliWall),
          exportMs: Math.round(cliExport),
          // Against the export's own time: starting Node is no request the rate limit governs.
          efficiency: ratio(boundMs, cliExport),
          efficiencyWithStartup: ratio(boundMs, cliWall),
          failed: Math.max(...cliRuns.map((r) => r.failed)),
          rateLimited: median(cliRuns.map((r) => r.rateLimit.rateLimited)),
          pauses: median(cliRuns.map((r) => r.rateLimit.pauses)),
          minConcurrency: Math.min(...cliRuns.map((r) => r.rateLimit.minLimit)),
          // The pace the export learned from its first 429 (at most `requests` in any `windowMs`), in the first run, when it needed one.
          pace: cliRuns[0].rateLimit.pace ?? null,
        },
        {
          name: "the same export without a rate limit (the machine's own pace, for context)",
          sdk: false,
          context: true,
          wallMs: Math.round(median(freeRuns.map((r) => r.wallMs))),
          exportMs: Math.round(median(freeRuns.map((r) => r.exportMs))),
          efficiency: ratio(boundMs, median(freeRuns.map((r) => r.exportMs))),
          efficiencyWithStartup: ratio(boundMs, median(freeRuns.map((r) => r.wallMs))),
          failed: Math.max(...freeRuns.map((r) => r.failed)),
          rateLimited: 0,
          pauses: 0,
          minConcurrency: null,
        },
        {
          name: "before: the single-account export, one process per account (each worker retries its own 429s)",
          sdk: false,
          wallMs: Math.round(baseWall),
          exportMs: Math.round(baseExport),
          efficiency: ratio(boundMs, baseExport),
          efficiencyWithStartup: ratio(boundMs, baseWall),
          failed: Math.max(...baseRuns.map((r) => r.failed)),
          rateLimited: median(baseRuns.map((r) => r.rateLimited)),
          pauses: null,
          minConcurrency: null,
        },
      ],
      perRun: {
        cli: cliRuns.map((r) => ({
          wallMs: round(r.wallMs),
          exportMs: round(r.exportMs),
          failed: r.failed,
          rateLimited: r.rateLimit.rateLimited,
          pauses: r.rateLimit.pauses,
          pace: r.rateLimit.pace ?? null,
        })),
        unlimited: freeRuns.map((r) => ({ wallMs: round(r.wallMs), exportMs: round(r.exportMs), failed: r.failed })),
        baseline: baseRuns.map((r) => ({ wallMs: round(r.wallMs), exportMs: round(r.exportMs), failed: r.failed, rateLimited: r.rateLimited })),
      },
    };
  } finally {
    await mock.close();
  }
}
