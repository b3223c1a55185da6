// The benchmark harness end to end with tiny sizes (seconds): it runs, and
// what it writes is a well-formed results object. No figure is judged here.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const positive = expect.any(Number);

describe("bench harness, smoke mode", () => {
  let out: string;
  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it("runs every section and writes results.json and BENCHMARKS.md", async () => {
    out = await mkdtemp(path.join(tmpdir(), "fdxkit-bench-smoke-"));
    await run(process.execPath, ["src/run.mjs", "--smoke", "--out", out], { cwd: benchDir });
    const results = JSON.parse(await readFile(path.join(out, "results.json"), "utf8"));

    expect(results.meta).toMatchObject({ smoke: true, node: process.versions.node, durationMs: positive });

    const names = results.overhead.contenders.map((c: { name: string }) => c.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "raw fetch + res.json()",
        "raw fetch + res.json(), with a 30 s timeout signal",
        "undici.request (lower bound)",
        "openapi-fetch",
        "axios",
        "ky",
        "fdxkit consents.get",
        "fdxkit consents.get, validateResponses",
      ]),
    );
    for (const c of results.overhead.contenders) {
      expect(c).toMatchObject({
        medianUs: positive,
        p99Us: positive,
        medianRatio: positive,
        pooledMedianRatio: positive,
        vsTimeoutSignal: positive,
        p99Ratio: positive,
        cpuUs: positive,
        cpuRatio: positive,
        concurrentRps: positive,
        concurrentRatio: positive,
      });
      expect(c.p99Us).toBeGreaterThanOrEqual(c.medianUs);
    }
    const baseline = results.overhead.contenders.find((c: { baseline: boolean }) => c.baseline);
    expect(baseline).toMatchObject({ medianRatio: 1, pooledMedianRatio: 1, cpuRatio: 1, concurrentRatio: 1 });
    expect(results.overhead.contenders.find((c: { name: string }) => c.name.includes("timeout signal")).vsTimeoutSignal).toBe(1);

    expect(results.pagination).toMatchObject({
      handLoopMs: positive,
      handLoopSignalMs: positive,
      sdkMs: positive,
      nodeHttpMs: positive,
      ratio: positive,
      pooledRatio: positive,
      signalRatio: positive,
      vsTimeoutSignal: positive,
      nodeHttpRatio: positive,
      vsNodeHttp: positive,
    });
    expect(results.pagination.statements).toBe(results.pagination.pages * results.pagination.perPage);
    expect(results.pagination.slowConsumer).toMatchObject({ sequentialMs: positive, prefetchMs: positive, speedup: positive });

    expect(results.download.scenarios).toHaveLength(6);
    for (const s of results.download.scenarios) {
      expect(s).toMatchObject({
        ms: positive,
        vsFetch: positive,
        vsHttp: positive,
        rssRiseMiB: expect.any(Number),
        heldRiseMiB: expect.any(Number),
        coldRssRiseMiB: expect.any(Number),
      });
      expect(s.chunks).toBeGreaterThan(0);
    }

    expect(results.bundle.entries.map((e: { name: string }) => e.name)).toEqual(
      expect.arrayContaining(["@fdxkit/client", "openapi-fetch", "ky", "axios", "@octokit/core"]),
    );
    for (const e of results.bundle.entries) {
      expect(e.gzipBytes).toBeGreaterThan(0);
      expect(e.nodeBuiltins).toEqual([]);
    }

    expect(results.importTime.modules.map((m: { name: string }) => m.name)).toEqual(
      expect.arrayContaining(["@fdxkit/client", "@fdxkit/client/webhooks", "@fdxkit/client/node", "openapi-fetch"]),
    );
    for (const m of results.importTime.modules) expect(m.ms).toBeGreaterThan(0);

    expect(results.export).toMatchObject({ accounts: 1, requests: positive, boundMs: positive });
    expect(results.export.contenders).toHaveLength(3);
    for (const c of results.export.contenders)
      expect(c).toMatchObject({ exportMs: positive, wallMs: positive, efficiency: positive, failed: expect.any(Number) });
    // Smoke runs Node only (no runtime installed); the full run adds Bun, Deno, workerd and edge-runtime.
    expect(results.webhooks.runtimes).toEqual([
      expect.objectContaining({ runtime: "node", version: `Node ${process.versions.node}`, bareRps: positive, sdkRps: positive, ratio: positive }),
    ]);
    expect(results.webhooks.runtimes[0].error).toBeUndefined();
    expect(results.webhooksTls.modes).toEqual([
      expect.objectContaining({ mode: "keep-alive", plainRps: positive, mutualRps: positive, ratio: positive }),
      expect.objectContaining({ mode: "new connection", plainRps: positive, mutualRps: positive, ratio: positive }),
    ]);

    expect(results.connections).toMatchObject({ calls: positive, storeReadsDuringTimedCalls: expect.any(Number) });
    expect(results.connections.contenders.map((c: { name: string }) => c.name)).toEqual(["static id token (a string)", "connections.token(id), memory store"]);
    for (const c of results.connections.contenders)
      expect(c).toMatchObject({ medianUs: positive, medianRatio: positive, pooledMedianRatio: positive, cpuUs: positive, cpuRatio: positive });
    // Needs a real PostgreSQL (Debian's package, as @fdxkit/postgres's tests); without one the section says it did not run.
    expect(results.storeSeal.contenders.map((c: { name: string }) => c.name)).toEqual(["memory store", "encryptConnectionStore over memory"]);
    for (const c of results.storeSeal.contenders) expect(c).toMatchObject({ writeUs: positive, readUs: positive, refreshUs: positive, writeRatio: positive });
    expect(results.storeSeal.resealPerRefreshUs).toEqual(expect.any(Number));

    const refresh = results.connectionsRefresh;
    if (refresh.skipped) expect(refresh.skipped).toEqual(expect.any(String));
    else {
      expect(refresh).toMatchObject({
        connections: 20,
        processes: 2,
        wallMs: positive,
        idpRefreshes: positive,
        refreshesPerConnection: positive,
        conflicts: expect.any(Number),
        failedCalls: expect.any(Number),
      });
      expect(refresh.crashWindowMs).toMatchObject({ samples: refresh.idpRefreshes, median: positive, p99: positive, max: positive });
    }

    // The CLI's embedded store: one run of each figure; postgres:// only where a server can be started.
    const store = results.cliStore;
    expect(store.list.embedded).toMatchObject({ samples: 1, medianMs: positive });
    if (typeof store.list.postgres !== "string")
      expect(store.list).toMatchObject({ postgres: { samples: 1, medianMs: positive }, addedMs: expect.any(Number) });
    expect(store.newStore).toMatchObject({ samples: 1, medianMs: positive });
    expect(store.memory.openPGlite).toMatchObject({ samples: 1, medianMs: positive });
    expect(store.existingDir.openPGlite).toMatchObject({ samples: 1, medianMs: positive });
    expect(store.firstTouchMsPerMb).toBeGreaterThan(0);

    // The rate-budget proof: the rows without a PostgreSQL server, a month of statements.
    expect(results.rateBudget.rows.map((r: { mode: string }) => r.mode)).toEqual(["none", "memory"]);
    for (const r of results.rateBudget.rows) expect(r).toMatchObject({ requests: positive, exportMs: positive, idealMs: positive, efficiency: positive });

    expect(results.targets.length).toBeGreaterThanOrEqual(5);
    for (const t of results.targets) expect(t).toMatchObject({ target: expect.any(String), measured: expect.any(String), met: expect.any(Boolean) });

    const markdown = await readFile(path.join(out, "BENCHMARKS.md"), "utf8");
    expect(markdown).toMatch(/Memory touched for the first time cost \d+(\.\d+)? ms a MB on this machine/);
    for (const heading of [
      "# Benchmarks",
      "## Targets",
      "## Per-call overhead",
      "## Pagination",
      "## Download",
      "## Browser bundle size",
      "## Cold import time",
      "## Bulk export against a rate limit",
      "## Webhook receive throughput, mutual TLS vs plain TLS",
      "## Connections: the token function on the hot path",
      "## Connections: refreshed by several processes on PostgreSQL",
      "## The CLI's embedded store: start-up",
      "## One rate budget per provider, shared by every process",
    ]) {
      expect(markdown).toContain(heading);
    }
    // Every section, the export's child processes included: minutes on a loaded two-core machine.
  }, 180_000);
});
