// Webhook receive throughput, per runtime: `createWebhookHandler` on the
// runtime's own server (Bun.serve, Deno.serve, a Worker's fetch in workerd
// through miniflare and in edge-runtime, node:http with toNodeListener) against
// a bare handler that only parses the JSON body, both served by the same
// server in the same process (webhook-receive/routes.mjs). A keep-alive undici
// pool in this process posts the same notification at a fixed concurrency, in
// interleaved rounds of a fixed duration after a warm-up of a fixed duration;
// throughput is requests per second, median of the rounds; the ratio is
// handler ÷ bare from the same run. Rounds are timed, not counted: at 40,000
// requests a second in Bun and Deno, rounds of 300 requests lasted 8 ms and
// a 500-request warm-up left the JIT still compiling the handler's path, so
// the same build read 0.69× and 1.06× in Bun on two runs.
//
// The runtimes other than Node come from the npm registry (pinned in
// scripts/runtime-tools.mjs, cached under node_modules/.cache).
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Pool } from "undici";
import { ensureTools, importTool, toolBin, toolPath, toolVersion } from "../../scripts/runtime-tools.mjs";
import { median, ratio, rotate, round } from "./stats.mjs";

const here = path.join(path.dirname(fileURLToPath(import.meta.url)), "webhook-receive");

export const WEBHOOK_RUNTIMES = ["node", "bun", "deno", "workerd", "edge-runtime"];

/** A consent notification as the sandbox sends it (about 600 bytes). */
const PAYLOAD = JSON.stringify({
  notificationId: "ntf-91aa03f4-5b7e-4c1d-9f0e-2f6a8c3d1b7e",
  sentOn: "2025-03-15T17:02:11Z",
  subscriber: { name: "Budget App", type: "DATA_RECIPIENT", registry: "FDX", registeredEntityId: "rec-001" },
  publisher: { name: "Example Bank", type: "DATA_PROVIDER", registry: "GLEIF", registeredEntityId: "5493001KJTIIGC8Y1R12" },
  category: "CONSENT",
  type: "CONSENT_REVOKED",
  notificationPayload: {
    id: "cns-7f3e2a",
    idType: "CONSENT",
    customFields: [{ name: "reason", value: "user request" }],
    url: { href: "/consents/v1/cns-7f3e2a", action: "GET", rel: "consent", types: ["application/json"] },
  },
  url: { href: "/consents/v1/cns-7f3e2a", action: "GET", rel: "consent", types: ["application/json"] },
});

async function bundle(entry, outDir, options) {
  const outfile = path.join(outDir, `${path.basename(entry, ".mjs")}-${options.format}.js`);
  await build({ entryPoints: [path.join(here, entry)], outfile, bundle: true, logLevel: "error", target: "es2022", ...options });
  return outfile;
}

/** Starts `command` and resolves with its origin once it prints FDXKIT_BENCH_READY; `close` ends it. */
function startProcess(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
      const match = /FDXKIT_BENCH_READY (\S+)/.exec(out);
      if (match) {
        resolve({
          origin: match[1],
          close: () =>
            new Promise((done) => {
              child.once("close", done);
              child.kill();
            }),
        });
      }
    });
    child.stderr.on("data", (d) => (err += d));
    child.once("error", reject);
    child.once("close", (code) => reject(new Error(`${path.basename(command)} exited with ${code}: ${err.trim().slice(-300)}`)));
  });
}

/** The runtime's server with both routes; resolves with { origin, version, close }. */
async function startRuntime(runtime, outDir) {
  if (runtime === "node" || runtime === "bun" || runtime === "deno") {
    const host = await bundle("host.mjs", outDir, { format: "esm", platform: "node" });
    if (runtime === "node") return { ...(await startProcess(process.execPath, [host])), version: `Node ${process.versions.node}` };
    if (runtime === "bun") return { ...(await startProcess(toolBin("bun"), ["run", host])), version: `Bun ${toolVersion("bun")}` };
    return { ...(await startProcess(toolBin("deno"), ["run", "--quiet", "--allow-net=127.0.0.1", host])), version: `Deno ${toolVersion("deno")}` };
  }
  const script = await readFile(
    await bundle("worker.mjs", outDir, {
      format: "iife",
      platform: "browser",
      conditions: runtime === "workerd" ? ["workerd", "worker", "browser"] : ["edge-light", "worker", "browser"],
    }),
    "utf8",
  );
  if (runtime === "workerd") {
    const { Miniflare } = await importTool("miniflare");
    const mf = new Miniflare({ script, compatibilityDate: "2026-04-01", host: "127.0.0.1", port: 0 });
    const url = await mf.ready;
    const workerd = JSON.parse(await readFile(toolPath("workerd", "package.json"), "utf8")).version;
    return { origin: url.origin, version: `workerd ${workerd} (miniflare ${toolVersion("miniflare")})`, close: () => mf.dispose() };
  }
  const { EdgeRuntime, runServer } = await importTool("edge-runtime");
  const server = await runServer({ runtime: new EdgeRuntime({ initialCode: script }), port: 0, host: "127.0.0.1" });
  return { origin: new URL(server.url).origin, version: `edge-runtime ${toolVersion("edge-runtime")}`, close: () => server.close() };
}

/** Posts notifications to `route` with `concurrency` in flight for `ms` milliseconds; resolves with requests per second. */
async function burst(pool, route, ms, concurrency) {
  let done = 0;
  const started = performance.now();
  const deadline = started + ms;
  const worker = async () => {
    while (performance.now() < deadline) {
      const { statusCode, body } = await pool.request({ path: route, method: "POST", headers: { "content-type": "application/json" }, body: PAYLOAD });
      const text = await body.text();
      if (statusCode !== 200) throw new Error(`${route} answered ${statusCode}: ${text.slice(0, 200)}`);
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done / ((performance.now() - started) / 1000);
}

/**
 * @param {{ runtimes?: string[], warmupMs: number, rounds: number, roundMs: number, concurrency: number, log?: (line: string) => void }} config
 */
export async function runWebhookReceive({ runtimes = WEBHOOK_RUNTIMES, warmupMs, rounds, roundMs, concurrency, log = () => {} }) {
  if (runtimes.some((r) => r !== "node")) ensureTools({ log });
  const outDir = await mkdtemp(path.join(tmpdir(), "fdxkit-bench-webhooks-"));
  const results = [];
  try {
    for (const runtime of runtimes) {
      const entry = { runtime, version: undefined };
      results.push(entry);
      let server;
      let pool;
      try {
        server = await startRuntime(runtime, outDir);
        entry.version = server.version;
        pool = new Pool(server.origin, { connections: concurrency, pipelining: 1 });
        const routes = ["/bare", "/sdk"];
        for (const r of routes) await burst(pool, r, warmupMs, concurrency);
        const rps = { "/bare": [], "/sdk": [] };
        for (let i = 0; i < rounds; i++) {
          for (const r of rotate(routes, i)) rps[r].push(await burst(pool, r, roundMs, concurrency));
        }
        entry.bareRps = round(median(rps["/bare"]), 0);
        entry.sdkRps = round(median(rps["/sdk"]), 0);
        entry.ratio = ratio(median(rps["/sdk"]), median(rps["/bare"]));
        log(`  ${runtime} (${entry.version}): bare ${entry.bareRps} req/s, handler ${entry.sdkRps} req/s, ${entry.ratio.toFixed(2)}×`);
      } catch (error) {
        entry.error = error instanceof Error ? error.message : String(error);
        log(`  ${runtime}: ${entry.error}`);
      } finally {
        await pool?.close();
        await server?.close();
      }
    }
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
  return { concurrency, rounds, roundMs, warmupMs, payloadBytes: PAYLOAD.length, runtimes: results };
}
