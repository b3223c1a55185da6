// The proof that one budget shared through PostgreSQL keeps N export
// processes and a web instance under a provider's limit, uses all of it, and
// keeps the end users' calls fast (rate-budget-proof/scenario.mjs; the
// benchmark runs the same at full size, with the memory-budget row too).
// On a real PostgreSQL server, started here as packages/postgres's tests
// start theirs; skipped where none is installed, except under CI.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPostgresBin, startPostgresServer, type PostgresServer } from "../../postgres/test/postgres-server.mjs";
import { assertBuilt } from "./helpers.js";
import { runRateBudgetProof, type ProofRow } from "./rate-budget-proof/scenario.mjs";

const bin = findPostgresBin();
if (!bin && process.env.CI) throw new Error("PostgreSQL is not installed (no initdb): install Debian's postgresql package (.ci/run does)");
let server: PostgresServer | undefined;
let rows: ProofRow[];

beforeAll(async () => {
  if (!bin) return;
  assertBuilt();
  server = await startPostgresServer(bin);
  // 18 months of the seeded accounts: shard 4 has 97 statements, shard 3 has 16. Without a budget, half a year
  // (shard 4 then paces itself at the share it got in the first window, which takes minutes over a year).
  rows = [
    ...(await runRateBudgetProof({ modes: ["none"], range: { from: "2026-05-01", to: "2026-10-31" }, idleMs: 1000 })),
    ...(await runRateBudgetProof({ modes: ["postgres"], postgresUrl: server.url, range: { from: "2025-05-01", to: "2026-10-31" }, idleMs: 4000 })),
  ];
}, 120_000);
afterAll(() => server?.stop());

describe.skipIf(!bin)("4 export shards and a web instance against a provider that allows 20 calls a second (skipped: PostgreSQL is not installed)", () => {
  const row = (mode: string) => rows.find((r) => r.mode === mode)!;

  it("the shards are skewed: one has over 5x the statements of another, and every statement is saved", () => {
    for (const r of rows) expect(r.shards.map((s) => s.failed)).toEqual([0, 0, 0, 0]);
    for (const r of rows.filter((r) => r.mode === "postgres")) {
      const saved = r.shards.map((s) => s.downloaded);
      expect(Math.max(...saved)).toBeGreaterThanOrEqual(5 * Math.min(...saved.filter((n) => n > 0)));
      expect(r.idle.failed + r.during.failed + r.during.unanswered).toBe(0);
    }
  });

  it("without a budget the processes meet the provider's limit", () => {
    expect(row("none").rateLimited, JSON.stringify(row("none"))).toBeGreaterThan(0);
  });

  it("with one PostgreSQL budget: at most 1% 429s, about 0.9 of the limit used, user calls first, no idle shard", () => {
    const r = row("postgres");
    const detail = JSON.stringify(r);
    expect(r.rateLimitedShare, detail).toBeLessThanOrEqual(0.01);
    // The goal is 0.9. The budget the docs size for 20 a second with burst 2 spends 18 a second (0.9 of the limit)
    // plus its burst, so 0.9 is the ceiling, not a margin: measured 0.89 to 0.93 on a loaded two-core machine. The
    // check keeps clear of that noise and still fails a budget that wastes tokens (burst 1 measured 0.74 to 0.83;
    // the budget before a served user call cleared the row's mark, 0.57).
    expect(r.efficiency, detail).toBeGreaterThanOrEqual(0.85);
    // User calls go first: their p95 wait in the budget stays within a few of its 18 tokens a second while 32 batch
    // calls wait. Their whole latency (the benchmark reports it against idle) also holds the wait for a CPU the
    // export processes, PostgreSQL and the sandbox share on a two-core machine, which no budget can shorten.
    expect(r.duringWaits.calls, detail).toBeGreaterThan(0);
    expect(r.duringWaits.p95, detail).toBeLessThanOrEqual(200);
    // Once the others ended, the last shard (with the web instance) took the whole limit, not its quarter of it.
    expect(r.tailUse, detail).toBeGreaterThanOrEqual(0.8);
  });
});
