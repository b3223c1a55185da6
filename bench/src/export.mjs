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
// Baseline: the export as it was before the multi-account CLI, one account
// per run, run once per account: the account's list read page by page, four
// workers downloading, each retrying its own 429s through the client (no
// shared pause), with the client's default two retries.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createClient } from "@fdxkit/client";
import { saveStatement } from "@fdxkit/client/node";
import { startMockServer } from "@fdxkit/mock";
import { median, ratio, round } from "./stats.mjs";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = path.join(repoRoot, "packages/cli/dist/cli.js");
const TOKEN = "bench.export.token";
const PROVIDER_ID = "sandbox-bank";
// The seed's statements end on 2026-10-31: a fixed range keeps the scenario the same whatever the date.
const FROM = "2024-11-01";
const TO = "2026-10-31";

/** The sandbox of the scenario. `latencyMs` delays every answer (a mock without that option ignores it). */
function sandbox({ rateLimit, latencyMs }) {
  return startMockServer({ port: 0, token: TOKEN, rateLimit, latencyMs });
}

/** Runs the built CLI; resolves with its exit code, its JSON summary and the wall time of the process. */
function runCli(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => {
      const wallMs = performance.now() - started;
      try {
        resolve({ code, summary: JSON.parse(stdout), wallMs, stderr });
      } catch {
        reject(new Error(`fdxkit exited ${code} without a JSON summary:\n${stderr.slice(-2000)}`));
      }
    });
  });
}

/** List pages the export needs: each account's windows, page by page, as the CLI reads them (the provider's default page size). */
async function countPages(mock, accounts, windows) {
  const client = createClient({ baseUrl: mock.baseUrl, productsUrl: mock.productsUrl, token: TOKEN, maxRetries: 10 });
  let pages = 0;
  for (const accountId of accounts) {
    for (const w of windows) {
      for await (const _page of client.statements.list({ providerId: PROVIDER_ID, accountId, startTime: w.start, endTime: w.end }).pages()) pages++;
    }
  }
  return pages;
}

async function multiAccountRun({ accounts, rateLimit, latencyMs }) {
  const mock = await sandbox({ rateLimit, latencyMs });
  const out = await mkdtemp(path.join(tmpdir(), "fdxkit-bench-export-"));
  try {
    const flags = accounts.flatMap((a) => ["--account", a]);
    const { code, summary, wallMs } = await runCli([
      "statements", "export", "--provider", PROVIDER_ID, ...flags, "--from", FROM, "--to", TO, "--out", out,
      "--base-url", mock.baseUrl, "--products-url", mock.productsUrl, "--token", TOKEN, "--json",
    ]);
    return { code, wallMs, exportMs: summary.elapsedMs, downloaded: summary.downloaded, failed: summary.failed.length, listed: summary.listed, windows: summary.windows, rateLimit: summary.rateLimit };
  } finally {
    await mock.close();
    await rm(out, { recursive: true, force: true });
  }
}

/** The single-account export of before, in-process (its algorithm, on the public client API), once per account. */
async function baselineRun({ accounts, rateLimit, latencyMs, concurrency = 4 }) {
  const mock = await sandbox({ rateLimit, latencyMs });
  const out = await mkdtemp(path.join(tmpdir(), "fdxkit-bench-export-base-"));
  let downloaded = 0;
  let failed = 0;
  let rateLimited = 0;
  const started = performance.now();
  try {
    for (const accountId of accounts) {
      const client = createClient({ baseUrl: mock.baseUrl, productsUrl: mock.productsUrl, token: TOKEN, hooks: { onRetry: (e) => void (e.error?.status === 429 && rateLimited++) } });
      const paginator = client.statements.list({ providerId: PROVIDER_ID, accountId, startTime: `${FROM}T00:00:00.000Z`, endTime: `${TO}T23:59:59.999Z` }, { prefetch: 1 });
      const iterator = paginator[Symbol.asyncIterator]();
      let n = 0;
      const worker = async () => {
        for (;;) {
          let next;
          try {
            next = await iterator.next();
          } catch {
            failed++;
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
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    }
    return { wallMs: performance.now() - started, downloaded, failed, rateLimited };
  } finally {
    await mock.close();
    await rm(out, { recursive: true, force: true });
  }
}

/**
 * `runs` interleaved rounds of the CLI export and the baseline; medians.
 * Sizes: `accounts` (the seed's first N), `rateLimit`, `latencyMs`.
 */
export async function runExport({ runs = 3, accounts: accountCount = 3, rateLimit = { limit: 20, windowMs: 1000 }, latencyMs = 20 } = {}) {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the CLI first (pnpm --filter @fdxkit/cli run build)`);
  const probe = await sandbox({});
  const accounts = probe.seed.accounts.slice(0, accountCount).map((a) => a.accountId);
  await probe.close();

  const cliRuns = [];
  const baseRuns = [];
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? ["cli", "base"] : ["base", "cli"];
    for (const which of order) {
      if (which === "cli") cliRuns.push(await multiAccountRun({ accounts, rateLimit, latencyMs }));
      else baseRuns.push(await baselineRun({ accounts, rateLimit, latencyMs }));
    }
  }

  // Requests the job needs, whoever runs it: the list pages plus one download per available statement.
  const counter = await sandbox({});
  const pages = await countPages(counter, accounts, cliRuns[0].windows);
  await counter.close();
  const requests = pages + cliRuns[0].downloaded + cliRuns[0].failed;
  const perSecond = rateLimit.limit / (rateLimit.windowMs / 1000);
  const boundMs = (requests / perSecond) * 1000;

  const cliWall = median(cliRuns.map((r) => r.wallMs));
  const cliExport = median(cliRuns.map((r) => r.exportMs));
  const baseWall = median(baseRuns.map((r) => r.wallMs));
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
        // Against the export's own time: the process start (Node, imports) is no request the rate limit governs.
        efficiency: ratio(boundMs, cliExport),
        efficiencyWithStartup: ratio(boundMs, cliWall),
        failed: Math.max(...cliRuns.map((r) => r.failed)),
        exitCodes: [...new Set(cliRuns.map((r) => r.code))],
        rateLimited: median(cliRuns.map((r) => r.rateLimit.rateLimited)),
        pauses: median(cliRuns.map((r) => r.rateLimit.pauses)),
        minConcurrency: Math.min(...cliRuns.map((r) => r.rateLimit.minLimit)),
      },
      {
        name: "before: single-account export, run once per account (each worker retries its own 429s)",
        sdk: false,
        wallMs: Math.round(baseWall),
        exportMs: Math.round(baseWall),
        efficiency: ratio(boundMs, baseWall),
        efficiencyWithStartup: ratio(boundMs, baseWall),
        failed: Math.max(...baseRuns.map((r) => r.failed)),
        exitCodes: [],
        rateLimited: median(baseRuns.map((r) => r.rateLimited)),
        pauses: null,
        minConcurrency: null,
      },
    ],
    perRun: { cli: cliRuns.map((r) => ({ wallMs: round(r.wallMs), exportMs: round(r.exportMs), failed: r.failed, rateLimited: r.rateLimit.rateLimited, pauses: r.rateLimit.pauses })), baseline: baseRuns.map((r) => ({ wallMs: round(r.wallMs), failed: r.failed, rateLimited: r.rateLimited })) },
  };
}
