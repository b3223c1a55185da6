// The rate-budget proof, shared by its test (rate-budget-proof.test.ts) and
// the benchmark (bench/src/rate-budget.mjs): the sandbox (a real HTTP server)
// limits sandbox-bank to LIMIT statement calls a second; 4 export processes
// (`fdxkit statements export --shard I/4`, the built CLI) run beside one
// "web" process (web.mjs) making a user call every 200 ms. One run per way of
// sharing the provider's limit:
//   none      no budget: each export paces itself from its own 429s;
//   memory    a memory budget in each process, the limit split as the docs say
//             to without a shared store: (L - N x burst) / N each, N = 5;
//   postgres  one budget on a real PostgreSQL server, the whole limit.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "@fdxkit/mock";
import pg from "pg";

const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
const WEB = fileURLToPath(new URL("./web.mjs", import.meta.url));
const TOKEN = "proof.token";
const PROVIDER = "sandbox-bank";
/** Every seeded account: with --shard I/4, shard 4 gets ACC-1001 and ACC-1004 (5x the statements of shard 3), shard 1 none. */
const ACCOUNTS = ["ACC-1001", "ACC-1002", "ACC-1003", "ACC-1004", "ACC-1005"];
const SHARDS = 4;
const PROCESSES = SHARDS + 1;
/** Two, as the CLI's default: with one, a token that comes while every taker is a moment late is lost. */
const BURST = 2;
/** Requests in flight per export process: with a budget, each shard may run at full concurrency. */
const CONCURRENCY = 8;

/**
 * Modes whose budget is the one on the PostgreSQL server: "postgres" with the
 * CLI's default user reserve, "postgres-fifth" with the budget's own default
 * (a fifth of the burst), for comparison.
 */
const SHARED = new Set(["postgres", "postgres-fifth"]);

/** The budget each process is given in `mode`, sized as the docs say. */
export function sizing(mode, limit) {
  if (mode === "none") return undefined;
  // The sizing rule perSecond <= (L - burst) / W, for one bucket (shared) or for N buckets that each may burst.
  const perSecond = SHARED.has(mode) ? limit - BURST : (limit - PROCESSES * BURST) / PROCESSES;
  return { perSecond, burst: BURST, ...(mode === "postgres-fifth" ? { reserve: BURST / 5 } : {}) };
}

function childEnv(extra) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("FDXKIT_")) env[key] = value;
  return { ...env, NO_COLOR: "1", ...extra };
}

const quantile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : Number.NaN);
const latencies = (calls) => {
  const ms = calls.map((c) => c.ms).sort((a, b) => a - b);
  return {
    calls: ms.length,
    median: quantile(ms, 0.5),
    p95: quantile(ms, 0.95),
    failed: calls.filter((c) => !c.ok).length,
    unanswered: calls.filter((c) => c.pending).length,
  };
};

function startWeb(mock, mode, limit, postgresUrl, everyMs) {
  const budget = sizing(mode, limit);
  const child = spawn(process.execPath, [WEB], {
    env: childEnv({
      FDXKIT_BASE_URL: mock.baseUrl,
      FDXKIT_PRODUCTS_URL: mock.productsUrl,
      FDXKIT_TOKEN: TOKEN,
      FDXKIT_WEB_BUDGET: SHARED.has(mode) ? "postgres" : mode,
      FDXKIT_WEB_POSTGRES: postgresUrl ?? "",
      FDXKIT_WEB_PER_SECOND: String(budget?.perSecond ?? 0),
      FDXKIT_WEB_BURST: String(budget?.burst ?? 0),
      FDXKIT_WEB_EVERY_MS: String(everyMs),
    }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (c) => (out += c));
  child.stderr.setEncoding("utf8").on("data", (c) => (err += c));
  const exited = new Promise((resolve) => child.on("close", resolve));
  return {
    ready: waitUntil(
      () => out.startsWith("ready\n"),
      exited,
      () => `the web process did not start:\n${err}`,
    ),
    async stop() {
      child.stdin.write("stop\n");
      const code = await exited;
      if (code !== 0) throw new Error(`the web process exited ${code}:\n${err}`);
      return JSON.parse(out.slice("ready\n".length).trim());
    },
  };
}

function waitUntil(predicate, exited, message) {
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (predicate()) {
        clearInterval(timer);
        resolve();
      }
    }, 5);
    exited.then(() => {
      clearInterval(timer);
      if (predicate()) resolve();
      else reject(new Error(message()));
    });
  });
}

/** One export process: when it was up (its first line), when its summary came (`onDone`), and the summary. */
function startShard(index, mock, mode, limit, postgresUrl, outDir, range, onDone) {
  const budget = sizing(mode, limit);
  const args = [CLI, "statements", "export", "--provider", PROVIDER, ...ACCOUNTS.flatMap((a) => ["--account", a])];
  args.push(
    "--from",
    range.from,
    "--to",
    range.to,
    "--shard",
    `${index}/${SHARDS}`,
    "--out",
    outDir,
    "--concurrency",
    String(CONCURRENCY),
    "--json",
    "--no-progress",
  );
  if (budget) {
    const reserve = budget.reserve === undefined ? "" : `/${budget.reserve}`;
    args.push("--rate-limit", `${budget.perSecond}/${budget.burst}${reserve}`, "--rate-budget", SHARED.has(mode) ? postgresUrl : "memory");
  }
  const child = spawn(process.execPath, args, {
    env: childEnv({ FDXKIT_BASE_URL: mock.baseUrl, FDXKIT_PRODUCTS_URL: mock.productsUrl, FDXKIT_TOKEN: TOKEN }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const shard = { index, upAt: undefined, doneAt: undefined, endAt: undefined, summary: undefined };
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (c) => {
    // The summary, printed once its last statement is saved: the end of its work (closing its pool and exiting is not).
    if (out === "") onDone(shard);
    out += c;
  });
  child.stderr.setEncoding("utf8").on("data", (c) => {
    // Its first line (the shard's accounts) comes once it is up, its budget open, before its first request.
    if (/^Shard \d+\/\d+:/m.test(err + c) && shard.upAt === undefined) shard.upAt = Date.now();
    err += c;
  });
  shard.done = new Promise((resolve, reject) => {
    child.on("close", (code) => {
      shard.endAt = Date.now();
      if (code === 0) shard.summary = JSON.parse(out);
      if (code !== 0) reject(new Error(`shard ${index} exited ${code}:\n${err.slice(-3000)}`));
      else resolve(shard);
    });
  });
  return shard;
}

/** The provider's counts, and the calls it admitted (not answered 429). */
function counts(mock) {
  const { requests, limited } = mock.rateLimitStats()[PROVIDER];
  return { requests, limited, admitted: requests - limited, at: Date.now() };
}

/**
 * Runs the scenario once per mode. `range` ({ from, to }) sizes it; `idleMs`
 * is how long the web process runs alone first (its idle latencies).
 */
export async function runRateBudgetProof({ modes, postgresUrl, range, limit = 20, everyMs = 200, idleMs = 2500 }) {
  const mock = await startMockServer({ port: 0, token: TOKEN, providerRateLimits: { [PROVIDER]: { limit, windowMs: 1000 } } });
  const dir = mkdtempSync(path.join(tmpdir(), "fdxkit-rate-budget-proof-"));
  const db = postgresUrl ? new pg.Pool({ connectionString: postgresUrl, max: 1 }) : undefined;
  const rows = [];
  try {
    for (const [index, mode] of modes.entries()) {
      if (SHARED.has(mode)) {
        if (!db) throw new Error("the postgres rows need a PostgreSQL server");
        // A full bucket to start from, as after a quiet night.
        await db.query("DROP TABLE IF EXISTS fdxkit_rate_budget");
      }
      await new Promise((resolve) => setTimeout(resolve, 1100));
      mock.reset();
      rows.push(await runMode({ mode, mock, limit, postgresUrl, range, everyMs, idleMs, outDir: path.join(dir, `${index}-${mode}`) }));
    }
  } finally {
    await db?.end();
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

async function runMode({ mode, mock, limit, postgresUrl, range, everyMs, idleMs, outDir }) {
  const web = startWeb(mock, mode, limit, postgresUrl, everyMs);
  await web.ready;
  // Its first call paid for the process's warm-up (a pool's first connection, the budget's table): not idle latency.
  const warmAt = Date.now();
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  const ends = [];
  const shards = [];
  for (let i = 1; i <= SHARDS; i++)
    shards.push(
      startShard(i, mock, mode, limit, postgresUrl, outDir, range, (s) => {
        s.doneAt = Date.now();
        ends.push({ shard: s, ...counts(mock) });
      }),
    );
  // Started as the last process is up: from then on every shard is running, and the provider's calls count.
  const allUp = new Promise((resolve) => {
    const timer = setInterval(() => {
      if (shards.every((s) => s.upAt !== undefined || s.endAt !== undefined)) {
        clearInterval(timer);
        resolve(counts(mock));
      }
    }, 2);
  });
  const results = await Promise.allSettled(shards.map((s) => s.done));
  const start = await allUp;
  const { calls, waits } = await web.stop();
  const failure = results.find((r) => r.status === "rejected");
  if (failure) throw failure.reason;
  const end = ends.at(-1);
  const total = counts(mock);
  const exportMs = end.at - start.at;
  const idealMs = ((end.admitted - start.admitted) / limit) * 1000;
  // The tail: after every shard but the last with work ended, the last one alone (with the web process).
  const withWork = ends.filter((e) => e.shard.summary.listed > 0);
  const tailStart = withWork.length > 1 ? withWork.at(-2) : start;
  const tailMs = end.at - Math.max(tailStart.at, start.at);
  const tailUse = tailMs > 0 ? (end.admitted - tailStart.admitted) / ((tailMs / 1000) * limit) : 1;
  const firstUp = Math.min(...shards.map((s) => s.upAt ?? s.endAt));
  return {
    mode,
    budget: sizing(mode, limit) ?? null,
    requests: total.requests,
    rateLimited: total.limited,
    rateLimitedShare: total.limited / total.requests,
    exportMs,
    idealMs,
    efficiency: idealMs / exportMs,
    startSpreadMs: start.at - firstUp,
    shards: shards.map((s) => ({
      shard: s.index,
      listed: s.summary.listed,
      downloaded: s.summary.downloaded,
      failed: s.summary.failed.length,
      ms: s.doneAt - s.upAt,
    })),
    tailMs,
    tailUse,
    idle: latencies(calls.filter((c) => c.at >= warmAt && c.at < firstUp)),
    during: latencies(calls.filter((c) => c.at >= start.at && c.at < end.at)),
    // The user calls' waits in the budget while the export ran (none without a budget).
    duringWaits: latencies(waits.filter((w) => w.at >= start.at && w.at < end.at).map((w) => ({ ...w, ok: true }))),
  };
}
