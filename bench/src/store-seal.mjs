// What sealing costs a refresh: a refresh writes its connection twice (the
// lease, then the new tokens) and reads it once, and through
// `encryptConnectionStore` every write re-seals the three tokens (bound to the
// row's version and columns) and every read opens them. Measured as one
// compareAndSet and one get through the wrapper vs the bare memory store,
// interleaved rounds, medians of per-operation time.
import { performance } from "node:perf_hooks";
import { encryptConnectionStore, memoryConnectionStore } from "@fdxkit/client/auth";
import { median, pairedRatio, rotate, round } from "./stats.mjs";

const KEY = Buffer.alloc(32, 7).toString("base64");

/** A connection as a refresh writes it: JWT-sized tokens, a few accounts. */
function row(id, version) {
  return {
    id,
    status: "active",
    idToken: `eyJ${"i".repeat(900)}.${version}`,
    refreshToken: `rt-${"r".repeat(40)}-${version}`,
    expiresAt: 1_900_000_000_000 + version,
    accessToken: `at-${"a".repeat(40)}-${version}`,
    accessTokenExpiresAt: 1_900_000_000_000 + version,
    accounts: ["acct-1", "acct-2", "acct-3"],
    subject: "sub-bench",
    connector: "mikomo",
    consentId: `consent-${id}`,
    issuer: "https://idp.example",
    clientId: "client-1",
    createdAt: 1_800_000_000_000,
    updatedAt: 1_800_000_000_000 + version,
    version,
  };
}

function contender(name, store) {
  return { name, store, version: 0, writeUs: [], readUs: [] };
}

/** One round: `ops` writes of the next version, each followed by a read, timed apart. */
async function round1(c, ops) {
  let write = 0;
  let read = 0;
  for (let i = 0; i < ops; i++) {
    const next = row("bench", c.version + 1);
    const t0 = performance.now();
    const ok = await c.store.compareAndSet("bench", c.version, next);
    const t1 = performance.now();
    if (!ok) throw new Error(`${c.name}: a write of version ${next.version} lost`);
    c.version++;
    await c.store.get("bench");
    write += t1 - t0;
    read += performance.now() - t1;
  }
  c.writeUs.push((write * 1000) / ops);
  c.readUs.push((read * 1000) / ops);
}

export async function runStoreSeal({ warmup, rounds, opsPerRound }) {
  const contenders = [
    contender("memory store", memoryConnectionStore()),
    contender("encryptConnectionStore over memory", encryptConnectionStore(memoryConnectionStore(), { keys: { k1: KEY }, current: "k1" })),
  ];
  for (const c of contenders) {
    await round1(c, warmup);
    c.writeUs.length = 0;
    c.readUs.length = 0;
  }
  for (let r = 0; r < rounds; r++) for (const c of rotate(contenders, r)) await round1(c, opsPerRound);
  const [bare, sealed] = contenders;
  // A refresh: two writes (lease, tokens) and one read.
  const perRefresh = (c) => 2 * median(c.writeUs) + median(c.readUs);
  return {
    warmup,
    rounds,
    opsPerRound,
    contenders: contenders.map((c) => ({
      name: c.name,
      writeUs: round(median(c.writeUs), 2),
      readUs: round(median(c.readUs), 2),
      refreshUs: round(perRefresh(c), 2),
      writeRatio: pairedRatio(c.writeUs, bare.writeUs),
    })),
    resealPerRefreshUs: round(perRefresh(sealed) - perRefresh(bare), 2),
  };
}
