// One app process of connections-refresh.mjs, on the built packages. argv[2]
// is a JSON config. It reads every connection's current id token first (the
// token every process will call rejected), prints "ready", waits for a line
// on stdin (so every process starts at once), then asks `connections.token(id)`
// for a token other than that one for each connection, `concurrency` at a
// time, all processes in the same order (the most contention). Prints one
// JSON line: its time, how many refreshes it made itself, and the crash
// window of each: from the IdP's answer in hand to the store's write of the
// new pair done.
import { createAuthClient, createConnections } from "@fdxkit/client/auth";
import { postgresConnectionStore } from "@fdxkit/postgres";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { timed } from "./timed.mjs";

const config = JSON.parse(process.argv[2]);
const pool = new pg.Pool({ connectionString: config.postgresUrl, max: config.poolSize });
const store = postgresConnectionStore(pool, { table: config.table });
const auth = createAuthClient({ issuer: config.issuer, clientId: config.clientId, clientSecret: config.clientSecret, redirectUri: config.redirectUri });

const { auth: timedAuth, store: timedStore, windowsMs } = timed(auth, store);
const connections = createConnections({ auth: timedAuth, store: timedStore });

const initial = [];
for await (const row of connections.list()) initial.push([row.id, row.idToken]);
initial.sort(([a], [b]) => (a < b ? -1 : 1));
process.stdout.write("ready\n");
await new Promise((resolve) => process.stdin.once("data", resolve));

const started = performance.now();
let next = 0;
let failed = 0;
let unchanged = 0;
const errors = [];
const worker = async () => {
  while (next < initial.length) {
    const [id, rejected] = initial[next++];
    try {
      const token = await connections.token(id)({ rejected, signal: undefined });
      if (token === rejected) unchanged++;
    } catch (error) {
      failed++;
      if (errors.length < 5) errors.push(`${error?.name}: ${error?.message}`);
    }
  }
};
await Promise.all(Array.from({ length: config.concurrency }, worker));
const ms = performance.now() - started;
process.stdout.write(`${JSON.stringify({ ms, refreshed: windowsMs.length, windowsMs, failed, unchanged, errors })}\n`);
await pool.end();
