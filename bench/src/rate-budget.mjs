// One rate budget per provider, shared by every process (issue 37's proof, at
// full size): the sandbox limits sandbox-bank to 20 statement calls a second;
// 4 `fdxkit statements export --shard I/4` processes (skewed: shard 4 has over
// 5x the statements of shard 3) run beside a web process making a user call
// every 200 ms. Three ways: no budget, a memory budget per process (sized as
// the docs say without a shared store), one budget on a real PostgreSQL server
// (started for the run; that row is skipped without one). The scenario is the
// one the CLI's test runs (packages/cli/test/rate-budget-proof/scenario.mjs).
import { runRateBudgetProof } from "../../packages/cli/test/rate-budget-proof/scenario.mjs";
import { findPostgresBin, startPostgresServer } from "../../packages/postgres/test/postgres-server.mjs";

export async function runRateBudget({ range, modes, idleMs, limit = 20 }) {
  const shared = (m) => m.startsWith("postgres");
  const bin = modes.some(shared) ? findPostgresBin() : undefined;
  const server = bin ? await startPostgresServer(bin) : undefined;
  try {
    const run = server ? modes : modes.filter((m) => !shared(m));
    const rows = await runRateBudgetProof({ modes: run, postgresUrl: server?.url, range, idleMs, limit });
    return { limit, range, rows, ...(modes.some(shared) && !server ? { skipped: "PostgreSQL is not installed (no initdb)" } : {}) };
  } finally {
    server?.stop();
  }
}
