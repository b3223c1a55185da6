// Download: a large statement through the SDK versus raw fetch and Node's own
// http stream, to a file and with the body discarded. Every run is a fresh
// process (`--expose-gc`), forked from here with `--child`:
// - "time" runs measure wall time from request to the last byte (file flushed
//   and in place for the file runs); nothing forces a collection;
// - a "memory" run forces a full collection every 4 MiB of body and samples
//   RSS right after it, so the peak rise over the process's warmed-up
//   baseline is memory held, not garbage not yet collected. The cadence is
//   counted in bytes, not chunks: contenders see different chunk sizes (raw
//   fetch to a file merges socket reads into 128 KiB chunks), and the peak
//   grows with the garbage made between two collections, so a cadence in
//   chunks would give each contender a different allowance.
// Each process first downloads 64 MiB the same way, in 256 KiB pieces, to
// warm up: V8 has then tiered up undici's WebAssembly HTTP parser before the
// baseline is taken (its optimising compile holds some 30 MiB for a moment,
// once per process, whatever the download), while no large download's
// buffers sit in the baseline. "Cold" memory runs warm up with 1 MiB only and
// show that one-time cost on top. Memory runs are repeated; medians are kept.
import { fork } from "node:child_process";
import { mkdtemp, open, rename, rm, stat } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { median, pairedRatio, rotate, round } from "./stats.mjs";

const GC_EVERY_BYTES = 4 * 1024 * 1024;
const TIMED_PER_PROCESS = 3;
const MiB = 1024 * 1024;
const WARM_UP_BYTES = { warm: 64 * MiB, cold: MiB };

export const SCENARIOS = [
  { name: "fdxkit download → saveStatement", id: "sdk-file", sdk: true, baseline: "fetch-file" },
  { name: "fetch → file", id: "fetch-file" },
  { name: "node:http → file", id: "http-file" },
  { name: "fdxkit download, body discarded", id: "sdk-discard", sdk: true, baseline: "fetch-discard" },
  { name: "fetch, body discarded", id: "fetch-discard" },
  { name: "node:http, body discarded", id: "http-discard" },
];

// ---------------------------------------------------------------- child side

async function child([scenario, origin, bytesText, mode, dir, warmth]) {
  const { TOKEN } = await import("./server.mjs");
  const headers = { Authorization: `Bearer ${TOKEN}`, Accept: "application/pdf" };
  const memory = mode === "memory";
  let chunks = 0;
  let sinceGc = 0;
  // RSS, and what the heap and the buffers outside it hold (`heapUsed + external`): RSS also
  // counts memory V8 and the allocator keep for reuse after a collection (a grown young generation).
  let baseline = { rss: 0, held: 0 };
  let peak = { rss: 0, held: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak = { rss: Math.max(peak.rss, m.rss), held: Math.max(peak.held, m.heapUsed + m.external) };
  };
  const tick = (chunk) => {
    chunks++;
    sinceGc += chunk.byteLength;
    if (memory && sinceGc >= GC_EVERY_BYTES) {
      sinceGc = 0;
      globalThis.gc();
      sample();
    }
  };
  // Counts chunks on their way to the file (memory runs only: time runs measure the plain code).
  const webCounter = () => new TransformStream({ transform: (chunk, c) => (tick(chunk), c.enqueue(chunk)) });
  const nodeCounter = () => new Transform({ transform: (chunk, _e, done) => (tick(chunk), done(null, chunk)) });

  let client;
  let saveStatement;
  if (scenario.startsWith("sdk")) {
    const { createClient } = await import("@fdxkit/client");
    ({ saveStatement } = await import("@fdxkit/client/node"));
    client = createClient({ baseUrl: origin, token: TOKEN });
  }

  // The same durability as saveStatement for the raw file runs: a temp file, flushed, renamed.
  async function toFile(source, file) {
    const temp = `${file}.part`;
    const handle = await open(temp, "wx");
    await pipeline(source, handle.createWriteStream({ flush: true }));
    await rename(temp, file);
  }
  const discardWeb = async (body) => {
    const reader = body.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) if (memory) tick(r.value);
  };

  const runs = {
    async "sdk-file"(url, file) {
      const doc = await client.statements.download(url);
      await saveStatement(memory ? { body: doc.body.pipeThrough(webCounter()) } : doc, file);
    },
    async "sdk-discard"(url) {
      const doc = await client.statements.download(url);
      await discardWeb(doc.body);
    },
    async "fetch-file"(url, file) {
      const res = await fetch(url, { headers });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      await toFile(Readable.fromWeb(memory ? res.body.pipeThrough(webCounter()) : res.body), file);
    },
    async "fetch-discard"(url) {
      const res = await fetch(url, { headers });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      await discardWeb(res.body);
    },
    async "http-file"(url, file) {
      const res = await httpGet(url, headers);
      await toFile(memory ? res.pipe(nodeCounter()) : res, file);
    },
    async "http-discard"(url) {
      const res = await httpGet(url, headers);
      for await (const chunk of res) if (memory) tick(chunk);
    },
  };

  const run = runs[scenario];
  const file = path.join(dir, `${scenario}-${process.pid}.pdf`);
  const bytes = Number(bytesText);
  // Warm-up in pieces of at most 256 KiB: the code gets hot without the allocator keeping a large download's buffers in the baseline.
  const piece = Math.min(256 * 1024, bytes);
  for (let left = Math.min(WARM_UP_BYTES[warmth], bytes); left > 0; left -= piece) await run(`${origin}/download/${Math.min(piece, left)}`, file);
  await rm(file, { force: true });
  globalThis.gc();
  globalThis.gc();
  const m = process.memoryUsage();
  baseline = { rss: m.rss, held: m.heapUsed + m.external };
  peak = { ...baseline };
  chunks = 0;
  sinceGc = 0;

  // Time runs download three times and keep the median: one download in a
  // fresh process read 0.66× and 1.16× raw fetch for the same build.
  const times = [];
  for (let i = 0; i < (memory ? 1 : TIMED_PER_PROCESS); i++) {
    const start = performance.now();
    await run(`${origin}/download/${bytes}`, file);
    times.push(performance.now() - start);
    if (scenario.endsWith("file")) {
      const { size } = await stat(file);
      if (size !== bytes) throw new Error(`${scenario}: wrote ${size} bytes, expected ${bytes}`);
      await rm(file, { force: true });
    }
  }
  const ms = median(times);
  if (memory) {
    globalThis.gc();
    sample();
  }
  return { ms, chunks, rssRiseBytes: peak.rss - baseline.rss, heldRiseBytes: peak.held - baseline.held };
}

function httpGet(url, headers) {
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (res) => (res.statusCode === 200 ? resolve(res) : reject(new Error(`HTTP ${res.statusCode}`)))).on("error", reject);
  });
}

// --------------------------------------------------------------- parent side

function runChild(args) {
  return new Promise((resolve, reject) => {
    const proc = fork(fileURLToPath(import.meta.url), ["--child", ...args], { execArgv: ["--expose-gc"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    let result;
    proc.on("message", (m) => (m.error ? reject(new Error(m.error)) : (result = m)));
    proc.on("error", reject);
    proc.on("exit", (code) => (result ? resolve(result) : reject(new Error(`download child ${args[0]} exited with ${code}`))));
  });
}

/**
 * @param {{ origin: string, bytes: number, timeRuns: number, memoryRuns: number }} config
 */
export async function runDownload({ origin, bytes, timeRuns, memoryRuns }) {
  const dir = await mkdtemp(path.join(tmpdir(), "fdxkit-bench-"));
  try {
    const times = new Map(SCENARIOS.map((s) => [s.id, []]));
    const memory = new Map();
    const chunks = new Map();
    for (let r = 0; r < timeRuns; r++) {
      for (const s of rotate(SCENARIOS, r)) {
        const out = await runChild([s.id, origin, String(bytes), "time", dir, "warm"]);
        times.get(s.id).push(out.ms);
        chunks.set(s.id, out.chunks);
      }
    }
    for (const warmth of ["warm", "cold"]) {
      for (let r = 0; r < memoryRuns; r++) {
        for (const s of rotate(SCENARIOS, r)) {
          const out = await runChild([s.id, origin, String(bytes), "memory", dir, warmth]);
          const key = `${warmth}:${s.id}`;
          memory.set(key, [...(memory.get(key) ?? []), out]);
          chunks.set(s.id, out.chunks);
        }
      }
    }
    const mibOf = (warmth, id, field) => round(median(memory.get(`${warmth}:${id}`).map((m) => m[field])) / MiB, 2);
    const ms = (id) => median(times.get(id));
    // Each round runs every scenario once: ratios are taken within a round.
    const paired = (id, base) => pairedRatio(times.get(id), times.get(base));
    return {
      bytes,
      mib: bytes / MiB,
      timeRuns,
      gcEveryMiB: GC_EVERY_BYTES / MiB,
      memoryRuns,
      warmUpMiB: WARM_UP_BYTES.warm / MiB,
      scenarios: SCENARIOS.map((s) => ({
        name: s.name,
        id: s.id,
        sdk: Boolean(s.sdk),
        ms: round(ms(s.id)),
        mibPerS: round(bytes / MiB / (ms(s.id) / 1000)),
        vsFetch: paired(s.id, s.id.endsWith("file") ? "fetch-file" : "fetch-discard"),
        vsHttp: paired(s.id, s.id.endsWith("file") ? "http-file" : "http-discard"),
        chunks: chunks.get(s.id),
        rssRiseMiB: mibOf("warm", s.id, "rssRiseBytes"),
        heldRiseMiB: mibOf("warm", s.id, "heldRiseBytes"),
        coldRssRiseMiB: mibOf("cold", s.id, "rssRiseBytes"),
      })),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") {
  child(process.argv.slice(3)).then(
    (result) => process.send(result, () => process.exit(0)),
    (error) => process.send({ error: String(error?.stack ?? error) }, () => process.exit(1)),
  );
}
