// `connections.token(id)` on the hot path: the same statement page read from
// the sandbox with the user's id token given as a static string, and through
// the token function of `createConnections` over a memory store (what an app
// passes to `client.withOptions({ token })`). The server does the same work
// for both (the same id token, checked the same way); the difference is the
// token function's own cost. It must read no store per call: the store's
// reads during the timed calls are counted.
import { fork } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createClient } from "@fdxkit/client";
import { createAuthClient, createConnections, memoryConnectionStore } from "@fdxkit/client/auth";
import { median, pairedRatio, ratio, rotate, round } from "./stats.mjs";

const SANDBOX = fileURLToPath(new URL("./connections/sandbox.mjs", import.meta.url));
const REDIRECT_URI = "http://127.0.0.1/callback";

function startSandbox() {
  const child = fork(SANDBOX, [], { stdio: "inherit" });
  const next = () =>
    new Promise((resolve, reject) => {
      const onExit = (code) => reject(new Error(`the sandbox process exited early (${code})`));
      child.once("exit", onExit);
      child.once("message", (message) => {
        child.off("exit", onExit);
        if (message.error) reject(new Error(message.error));
        else resolve(message);
      });
    });
  return {
    ready: next(),
    authorize: (url) => {
      const answer = next();
      child.send({ authorize: url });
      return answer.then((m) => m.callbackUrl);
    },
    close: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once("exit", () => done());
        child.disconnect();
      }),
  };
}

/** @param {{ warmup: number, rounds: number, callsPerRound: number }} config */
export async function runConnectionsHotPath({ warmup, rounds, callsPerRound }) {
  const sandbox = startSandbox();
  try {
    const s = await sandbox.ready;
    const auth = createAuthClient({ issuer: s.idpUrl, clientId: s.clientId, clientSecret: s.clientSecret, redirectUri: REDIRECT_URI });
    const memory = memoryConnectionStore();
    let storeReads = 0;
    const store = { ...memory, get: (id) => (storeReads++, memory.get(id)) };
    const connections = createConnections({ auth, store });
    const request = await auth.authorizationUrl({ connector: "sandbox-bank" });
    const connection = await connections.complete("bench-user", await sandbox.authorize(request.url), request);

    const client = createClient({ baseUrl: s.baseUrl, productsUrl: s.productsUrl, token: s.serviceToken });
    const page = async (c) => {
      for await (const p of c.statements.list({ providerId: "sandbox-bank", accountId: s.accountId }).pages()) return p;
      throw new Error("no page");
    };
    const contenders = [
      { name: "static id token (a string)", baseline: true, client: client.withOptions({ token: connection.idToken }) },
      { name: "connections.token(id), memory store", sdk: true, client: client.withOptions({ token: connections.token("bench-user") }) },
    ];
    for (const c of contenders) {
      const first = await page(c.client);
      if (!(first.statements?.length > 0)) throw new Error(`${c.name} read no statements`);
      for (let i = 1; i < warmup; i++) await page(c.client);
    }
    const readsBefore = storeReads;
    const samples = new Map(contenders.map((c) => [c.name, []]));
    const roundMedians = new Map(contenders.map((c) => [c.name, []]));
    const roundCpu = new Map(contenders.map((c) => [c.name, []]));
    for (let r = 0; r < rounds; r++) {
      for (const c of rotate(contenders, r)) {
        const times = [];
        const cpu = process.cpuUsage();
        for (let i = 0; i < callsPerRound; i++) {
          const start = performance.now();
          await page(c.client);
          times.push(performance.now() - start);
        }
        const used = process.cpuUsage(cpu);
        samples.get(c.name).push(...times);
        roundMedians.get(c.name).push(median(times));
        roundCpu.get(c.name).push((used.user + used.system) / callsPerRound);
      }
    }
    const base = contenders.find((c) => c.baseline).name;
    return {
      calls: rounds * callsPerRound,
      rounds,
      callsPerRound,
      warmup,
      storeReadsDuringTimedCalls: storeReads - readsBefore,
      contenders: contenders.map((c) => ({
        name: c.name,
        sdk: Boolean(c.sdk),
        baseline: Boolean(c.baseline),
        medianUs: round(median(samples.get(c.name)) * 1000),
        // The median of per-round ratios against the static token's round: the figure the target reads.
        medianRatio: pairedRatio(roundMedians.get(c.name), roundMedians.get(base)),
        pooledMedianRatio: ratio(median(samples.get(c.name)), median(samples.get(base))),
        cpuUs: round(median(roundCpu.get(c.name))),
        cpuRatio: pairedRatio(roundCpu.get(c.name), roundCpu.get(base)),
      })),
    };
  } finally {
    await sandbox.close();
  }
}
