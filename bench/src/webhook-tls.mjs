// Webhook receive throughput over mutual TLS (createWebhookServer, client
// certificate required and pinned) against plain TLS (node:https with
// toNodeListener, no client certificate), the same createWebhookHandler
// behind both, served by one Node process (webhook-tls/host.mjs). Two ways
// of sending: a keep-alive undici pool at a fixed concurrency (what a sender
// that reuses connections costs: the handshake is paid once), and a new
// connection per delivery (every delivery pays a full handshake, and the
// mutual one verifies a client certificate chain too). Interleaved rounds of
// a fixed duration after a warm-up; requests per second, median of the
// rounds; the ratio is mutual ÷ plain from the same run. Certificates are
// made for the run with the openssl CLI (P-256 keys).
import { execFileSync, spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client, Pool } from "undici";
import { median, ratio, rotate, round } from "./stats.mjs";

const host = path.join(path.dirname(fileURLToPath(import.meta.url)), "webhook-tls", "host.mjs");

/** The consent notification of the webhook-receive benchmark. */
const PAYLOAD = JSON.stringify({
  notificationId: "ntf-91aa03f4-5b7e-4c1d-9f0e-2f6a8c3d1b7e",
  sentOn: "2025-03-15T17:02:11Z",
  category: "CONSENT",
  type: "CONSENT_REVOKED",
  notificationPayload: { id: "cns-7f3e2a", idType: "CONSENT", customFields: [{ name: "reason", value: "user request" }] },
});
const REQUEST = { path: "/webhooks", method: "POST", headers: { "content-type": "application/json" }, body: PAYLOAD };

/** A CA, a server certificate for 127.0.0.1 and a client certificate, as PEM files in `dir`. */
function makeCertificates(dir) {
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  const openssl = (args) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  openssl(["req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj", "/CN=bench ca"]);
  for (const [name, subject, ext] of [
    ["server", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1"],
    ["client", "/CN=bench sender", "basicConstraints=CA:FALSE"],
  ]) {
    openssl(["req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject]);
    writeFileSync(path.join(dir, `${name}.ext`), `${ext}\n`);
    openssl([
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-days",
      "1",
      "-out",
      `${name}.pem`,
      "-extfile",
      `${name}.ext`,
    ]);
  }
  return Object.fromEntries(
    ["ca", "server", "client"].flatMap((n) => [
      [`${n}Pem`, path.join(dir, `${n}.pem`)],
      [`${n}Key`, path.join(dir, `${n}.key`)],
    ]),
  );
}

function startHost(env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [host], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
      const match = /FDXKIT_BENCH_READY (\S+) (\S+)/.exec(out);
      if (match) resolve({ plain: match[1], mutual: match[2], close: () => new Promise((done) => (child.once("close", done), child.kill())) });
    });
    child.stderr.on("data", (d) => (err += d));
    child.once("close", (code) => reject(new Error(`host exited with ${code}: ${err.trim().slice(-300)}`)));
  });
}

async function expect200(responsePromise) {
  const { statusCode, body } = await responsePromise;
  const text = await body.text();
  if (statusCode !== 200) throw new Error(`answered ${statusCode}: ${text.slice(0, 200)}`);
}

/** Deliveries per second for `ms` milliseconds, `concurrency` in flight, each through `send`. */
async function burst(send, ms, concurrency) {
  let done = 0;
  const started = performance.now();
  const deadline = started + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await send();
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

/**
 * @param {{ warmupMs: number, rounds: number, roundMs: number, concurrency: number, log?: (line: string) => void }} config
 */
export async function runWebhookTls({ warmupMs, rounds, roundMs, concurrency, log = () => {} }) {
  const dir = await mkdtemp(path.join(tmpdir(), "fdxkit-bench-tls-"));
  let server;
  const pools = [];
  try {
    const files = makeCertificates(dir);
    const [ca, clientCert, clientKey] = await Promise.all([files.caPem, files.clientPem, files.clientKey].map((f) => readFile(f, "utf8")));
    server = await startHost({
      FDXKIT_BENCH_SERVER_KEY: files.serverKey,
      FDXKIT_BENCH_SERVER_CERT: files.serverPem,
      FDXKIT_BENCH_CA: files.caPem,
      FDXKIT_BENCH_CLIENT_FINGERPRINT: new X509Certificate(clientCert).fingerprint256,
    });
    const connect = { plain: { ca }, mutual: { ca, cert: clientCert, key: clientKey } };
    const scenarios = [];
    for (const kind of ["plain", "mutual"]) {
      const pool = new Pool(server[kind], { connections: concurrency, pipelining: 1, connect: connect[kind] });
      pools.push(pool);
      scenarios.push({ name: `keep-alive ${kind}`, kind, mode: "keep-alive", send: () => expect200(pool.request(REQUEST)) });
      scenarios.push({
        name: `new connection ${kind}`,
        kind,
        mode: "new connection",
        send: async () => {
          const client = new Client(server[kind], { connect: connect[kind], pipelining: 0 });
          try {
            await expect200(client.request(REQUEST));
          } finally {
            await client.destroy();
          }
        },
      });
    }
    // One mode at a time, its two kinds interleaved: a round of new connections leaves
    // sockets closing behind it, which would slow whichever round came next.
    const modes = [];
    for (const mode of ["keep-alive", "new connection"]) {
      const pair = scenarios.filter((s) => s.mode === mode);
      for (const s of pair) await burst(s.send, warmupMs, concurrency);
      const rps = new Map(pair.map((s) => [s.kind, []]));
      for (let i = 0; i < rounds; i++) {
        for (const s of rotate(pair, i)) rps.get(s.kind).push(await burst(s.send, roundMs, concurrency));
      }
      const plain = median(rps.get("plain"));
      const mutual = median(rps.get("mutual"));
      const entry = { mode, plainRps: round(plain, 0), mutualRps: round(mutual, 0), ratio: ratio(mutual, plain) };
      log(`  ${mode}: plain TLS ${entry.plainRps} req/s, mutual TLS ${entry.mutualRps} req/s, ${entry.ratio.toFixed(2)}×`);
      modes.push(entry);
    }
    return { concurrency, rounds, roundMs, warmupMs, payloadBytes: PAYLOAD.length, node: process.versions.node, modes };
  } finally {
    await Promise.all(pools.map((p) => p.close()));
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  }
}
