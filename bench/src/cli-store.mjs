// What the CLI's embedded store costs to start, each figure from fresh
// processes (the way a user runs `fdxkit`), interleaved, median of the runs:
// - `fdxkit connections list` on an existing embedded (PGlite) store, vs the
//   same command with `--store postgres://…` on a real server started for the
//   run (skipped without one); the target is the difference;
// - the same command on a new store directory (what the first `connect`
//   pays for its store), with the prepared template cached, and on a machine
//   where no template is cached yet (initdb, then the template is saved);
// - inside one process, opening PGlite as `openPGlite` does vs a plain
//   `PGlite.create` (what the CLI did before): in memory (what a test opening
//   an in-memory store pays) and on an existing directory.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { findPostgresBin, startPostgresServer } from "../../packages/postgres/test/postgres-server.mjs";
import { median, round } from "./stats.mjs";

const CLI = fileURLToPath(new URL("../../packages/cli/dist/cli.js", import.meta.url));
const POSTGRES_DIR = fileURLToPath(new URL("../../packages/postgres/", import.meta.url));
const POSTGRES_DIST = path.join(POSTGRES_DIR, "dist", "index.js");

function run(args, env, cwd = undefined) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (c) => (out += c));
    child.stderr.setEncoding("utf8").on("data", (c) => (err += c));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      if (code !== 0) reject(new Error(`${args.join(" ")} exited ${code}:\n${err.slice(-2000)}`));
      else resolve({ ms, out });
    });
  });
}

/** `fdxkit connections list` on `store`: the whole process, as a user waits for it. */
async function list(store, env) {
  const { ms, out } = await run([CLI, "connections", "list", "--store", store], env);
  // A process that ends early with nothing done (exit code 0, no output) would read as a fast one.
  if (out !== "No connections.\n") throw new Error(`fdxkit connections list --store ${store} printed ${JSON.stringify(out.slice(0, 200))}`);
  return ms;
}

/** Opens a PGlite store inside a fresh process and reports the open alone (import to table ready). */
async function openInProcess(mode, dataDir, env) {
  const code = `
    const t0 = performance.now();
    const { openPGlite, postgresConnectionStore } = await import(${JSON.stringify(POSTGRES_DIST)});
    const { PGlite } = await import("@electric-sql/pglite");
    const dir = ${JSON.stringify(dataDir ?? null)} ?? undefined;
    const db = ${JSON.stringify(mode)} === "plain" ? await PGlite.create(dir) : await openPGlite(dir);
    await postgresConnectionStore(db).ready();
    const ms = performance.now() - t0;
    await db.close();
    process.stdout.write(String(ms));
  `;
  // Run from the postgres package, where the PGlite package resolves.
  const { out } = await run(["--input-type=module", "-e", code], env, POSTGRES_DIR);
  if (!/^\d+(\.\d+)?$/.test(out)) throw new Error(`the open in a process printed ${JSON.stringify(out.slice(0, 200))}, not its time`);
  return Number(out);
}

/**
 * What memory touched for the first time costs on this machine, in ms a MB
 * (64 MB filled in a fresh process). The embedded store touches about 70 MB
 * more than the postgres:// path, so this is what makes its start-up differ
 * most from one machine to the next.
 */
async function firstTouchMsPerMb(env) {
  const code = `
    const bytes = Buffer.allocUnsafeSlow(64 << 20);
    const t0 = performance.now();
    bytes.fill(1);
    process.stdout.write(String((performance.now() - t0) / 64));
  `;
  const { out } = await run(["-e", code], env);
  if (!/^\d+(\.\d+)?(e-?\d+)?$/.test(out)) throw new Error(`the first-touch probe printed ${JSON.stringify(out.slice(0, 200))}`);
  return Number(out);
}

const stat = (samples) => ({
  samples: samples.length,
  medianMs: round(median(samples), 0),
  minMs: round(Math.min(...samples), 0),
  maxMs: round(Math.max(...samples), 0),
});

/** @param {{ runs: number, coldRuns: number, plainRuns: number }} config */
export async function runCliStore({ runs, coldRuns, plainRuns }) {
  const root = mkdtempSync(path.join(os.tmpdir(), "fdxkit-bench-store-"));
  const cache = path.join(root, "cache");
  const env = {
    FDXKIT_ISSUER: "http://127.0.0.1:9/",
    FDXKIT_CLIENT_ID: "bench",
    FDXKIT_CLIENT_SECRET: "bench-secret",
    XDG_CONFIG_HOME: path.join(root, "config"),
    XDG_CACHE_HOME: cache,
  };
  const bin = findPostgresBin();
  const server = bin ? await startPostgresServer(bin) : undefined;
  try {
    const samples = { embedded: [], postgres: [], newStore: [], newStoreCold: [], memoryFast: [], memoryPlain: [], dirFast: [], dirPlain: [], firstTouch: [] };
    // The first run on this machine: no template yet (initdb, then it is saved); later ones find it.
    for (let i = 0; i < coldRuns; i++) {
      rmSync(cache, { recursive: true, force: true });
      samples.newStoreCold.push(await list(path.join(root, `cold-${i}`), env));
    }
    const existing = path.join(root, "existing");
    await list(existing, env);
    if (server) await list(server.url, env);
    for (let i = 0; i < runs; i++) {
      samples.embedded.push(await list(existing, env));
      if (server) samples.postgres.push(await list(server.url, env));
      samples.newStore.push(await list(path.join(root, `new-${i}`), env));
      samples.memoryFast.push(await openInProcess("fast", undefined, env));
      samples.dirFast.push(await openInProcess("fast", path.join(existing, "connections"), env));
      samples.firstTouch.push(await firstTouchMsPerMb(env));
      if (i < plainRuns) {
        samples.memoryPlain.push(await openInProcess("plain", undefined, env));
        samples.dirPlain.push(await openInProcess("plain", path.join(existing, "connections"), env));
      }
    }
    const embedded = stat(samples.embedded);
    const postgres = server ? stat(samples.postgres) : undefined;
    return {
      runs,
      list: {
        embedded,
        ...(postgres ? { postgres, addedMs: embedded.medianMs - postgres.medianMs } : { postgres: "skipped: no PostgreSQL installed (initdb not found)" }),
      },
      newStore: stat(samples.newStore),
      ...(coldRuns ? { newStoreNoTemplate: stat(samples.newStoreCold) } : {}),
      memory: { openPGlite: stat(samples.memoryFast), ...(plainRuns ? { plainCreate: stat(samples.memoryPlain) } : {}) },
      existingDir: { openPGlite: stat(samples.dirFast), ...(plainRuns ? { plainCreate: stat(samples.dirPlain) } : {}) },
      firstTouchMsPerMb: round(median(samples.firstTouch), 2),
    };
  } finally {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

// `node bench/src/cli-store.mjs [runs]`: this section alone, printed as JSON.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const runs = Number(process.argv[2] ?? 5);
  console.log(JSON.stringify(await runCliStore({ runs, coldRuns: 1, plainRuns: runs }), null, 2));
}
