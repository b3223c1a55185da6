// 1,000 connections refreshed by 4 processes on one PostgreSQL: every process
// asks each connection for a token other than the one they all read at the
// start (a rejected token), in the same order, so all four contend for every
// connection at about the same time. The lease must let exactly one of them
// refresh each connection (the IdP counts its refreshes), and no spent
// refresh token may reach the IdP (`refreshesRejected`, the conflicts).
// Beside it, the crash window of each refresh: from the IdP's answer in hand
// to the store's write of the new pair done (docs/connections.md).
//
// A real PostgreSQL server is started for the run (Debian's `postgresql`
// package, as @fdxkit/postgres's tests do); without one the section reports
// that it did not run.
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createAuthClient, createConnections } from "@fdxkit/client/auth";
import { startMockServer } from "@fdxkit/mock";
import { postgresConnectionStore } from "@fdxkit/postgres";
import pg from "pg";
import { findPostgresBin, startPostgresServer } from "../../packages/postgres/test/postgres-server.mjs";
import { timed } from "./connections/timed.mjs";
import { median, quantile, round } from "./stats.mjs";

const WORKER = fileURLToPath(new URL("./connections/refresh-worker.mjs", import.meta.url));
const REDIRECT_URI = "http://127.0.0.1/callback";
const TABLE = "bench_connections";

function startWorker(config) {
  const child = spawn(process.execPath, [WORKER, JSON.stringify(config)], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const line = async () => {
    const next = await lines.next();
    if (next.done) throw new Error(`refresh worker ended without an answer (exit ${await exited}):\n${stderr.slice(-2000)}`);
    return next.value;
  };
  return { child, line, exited };
}

const summary = (windows) => ({
  samples: windows.length,
  median: round(median(windows), 2),
  p99: round(quantile(windows, 0.99), 2),
  max: round(Math.max(...windows), 2),
});

/** @param {{ connections: number, processes: number, concurrency: number, poolSize: number, sequential: number }} config */
export async function runConnectionsRefresh({ connections: count, processes, concurrency, poolSize, sequential }) {
  const bin = findPostgresBin();
  if (!bin) return { connections: count, processes, concurrency, skipped: "no PostgreSQL installed (initdb not found)" };
  const server = await startPostgresServer(bin);
  const mock = await startMockServer();
  const pool = new pg.Pool({ connectionString: server.url, max: 8 });
  try {
    // Connect `count` users through the IdP's pages, as an app would (8 at a time).
    const auth = createAuthClient({ issuer: mock.idpUrl, clientId: mock.clientId, clientSecret: mock.clientSecret, redirectUri: REDIRECT_URI });
    const setup = createConnections({ auth, store: postgresConnectionStore(pool, { table: TABLE }) });
    const ids = Array.from({ length: count }, (_, i) => `user-${String(i).padStart(5, "0")}`);
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < ids.length) {
          const id = ids[next++];
          const request = await auth.authorizationUrl({ connector: "sandbox-bank" });
          await setup.complete(id, await mock.authorize(request.url), request);
        }
      }),
    );
    const before = mock.authStats();
    const initial = new Map();
    for await (const row of setup.list()) initial.set(row.id, row.refreshToken);

    const workers = Array.from({ length: processes }, () =>
      startWorker({
        postgresUrl: server.url,
        table: TABLE,
        issuer: mock.idpUrl,
        clientId: mock.clientId,
        clientSecret: mock.clientSecret,
        redirectUri: REDIRECT_URI,
        concurrency,
        poolSize,
      }),
    );
    for (const w of workers) if ((await w.line()) !== "ready") throw new Error("refresh worker did not start");
    const started = performance.now();
    for (const w of workers) w.child.stdin.end("go\n");
    const results = await Promise.all(workers.map(async (w) => JSON.parse(await w.line())));
    const wallMs = performance.now() - started;
    await Promise.all(workers.map((w) => w.exited));

    const after = mock.authStats();
    let rotated = 0;
    let active = 0;
    for await (const row of setup.list()) {
      if (row.status === "active") active++;
      if (row.refreshToken && row.refreshToken !== initial.get(row.id)) rotated++;
    }
    // The crash window without contention: one process refreshing one connection at a time.
    const quiet = timed(auth, postgresConnectionStore(pool, { table: TABLE }));
    const single = createConnections({ auth: quiet.auth, store: quiet.store });
    for (const id of ids.slice(0, sequential)) await single.refresh(id);
    return {
      connections: count,
      processes,
      concurrency,
      poolSize,
      wallMs: Math.round(wallMs),
      perProcessMs: results.map((r) => Math.round(r.ms)),
      idpRefreshes: after.refreshes - before.refreshes,
      refreshesPerConnection: round((after.refreshes - before.refreshes) / count, 3),
      conflicts: after.refreshesRejected - before.refreshesRejected,
      refreshedByProcess: results.map((r) => r.refreshed),
      failedCalls: results.reduce((n, r) => n + r.failed, 0),
      unchangedTokens: results.reduce((n, r) => n + r.unchanged, 0),
      errors: results.flatMap((r) => r.errors).slice(0, 5),
      rotated,
      active,
      crashWindowMs: summary(results.flatMap((r) => r.windowsMs)),
      crashWindowSequentialMs: summary(quiet.windowsMs),
    };
  } finally {
    await pool.end();
    await mock.close();
    server.stop();
  }
}
