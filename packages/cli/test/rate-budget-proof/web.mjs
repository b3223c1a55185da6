// The "web" process of the rate-budget proof: an app instance where an end
// user waits, making one statement call (`actorType: "user"`) every
// FDXKIT_WEB_EVERY_MS, each on its own (not waiting for the one before), as
// page views come. It takes from the budget FDXKIT_WEB_BUDGET names: none,
// memory (its own), or postgres (the one every export process shares).
// Prints "ready" once its first call answered; on "stop" (stdin), one JSON
// line { calls, waits } and exits: `calls`, { at, ms, ok, pending? } per call
// (epoch ms at the start, latency; `pending`: still unanswered, its wait so
// far); `waits`, { at, ms } per take from the budget.
import { createClient, memoryRateBudget } from "@fdxkit/client";
import { postgresRateBudget } from "@fdxkit/postgres";
import pg from "pg";

const env = process.env;
const limit = { perSecond: Number(env.FDXKIT_WEB_PER_SECOND), burst: Number(env.FDXKIT_WEB_BURST) };
let pool;
let rateBudget;
if (env.FDXKIT_WEB_BUDGET === "memory") rateBudget = memoryRateBudget({ default: limit });
if (env.FDXKIT_WEB_BUDGET === "postgres") {
  pool = new pg.Pool({ connectionString: env.FDXKIT_WEB_POSTGRES, max: 2 });
  rateBudget = postgresRateBudget(pool, { default: limit });
}
// Each take's wait in the budget, apart from the call's whole latency: on a machine the export processes load,
// the latency also holds the wait for a CPU, which no budget can shorten.
const waits = [];
const timed = rateBudget && {
  async take(providerId, actor, signal) {
    const at = Date.now();
    const started = performance.now();
    try {
      return await rateBudget.take(providerId, actor, signal);
    } finally {
      waits.push({ at, ms: performance.now() - started });
    }
  },
  pause: (providerId, ms) => rateBudget.pause(providerId, ms),
};
const client = createClient({
  baseUrl: env.FDXKIT_BASE_URL,
  productsUrl: env.FDXKIT_PRODUCTS_URL,
  token: env.FDXKIT_TOKEN,
  actorType: "user",
  ...(timed ? { rateBudget: timed } : {}),
});

const calls = [];
/** Calls not answered yet: at the end, each counts with its wait so far (a budget that cannot keep up leaves a backlog). */
const pending = new Set();
let ready = false;
async function call() {
  const at = Date.now();
  const started = performance.now();
  const entry = { at, started };
  pending.add(entry);
  let ok = true;
  try {
    for await (const page of client.statements.list({ providerId: "sandbox-bank", accountId: "ACC-1001", limit: 1 }).pages()) {
      if (page.statements.length !== 1) throw new Error("expected one statement");
      break;
    }
  } catch {
    ok = false;
  }
  pending.delete(entry);
  calls.push({ at, ms: performance.now() - started, ok });
  if (!ready) {
    ready = true;
    process.stdout.write("ready\n");
  }
}

const timer = setInterval(call, Number(env.FDXKIT_WEB_EVERY_MS));
void call();
process.stdin.setEncoding("utf8").on("data", async (text) => {
  if (!text.includes("stop")) return;
  clearInterval(timer);
  // The calls in flight finish first.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const now = performance.now();
  for (const { at, started } of pending) calls.push({ at, ms: now - started, ok: true, pending: true });
  process.stdout.write(`${JSON.stringify({ calls, waits })}\n`);
  await pool?.end();
  process.exit(0);
});
