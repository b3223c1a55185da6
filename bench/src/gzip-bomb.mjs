// A gzip bomb on a JSON call: `consents.get` against a server whose answer
// inflates to `inflatedBytes` of JSON whitespace. The SDK must reject at
// `maxResponseBytes` (default 16 MiB) with reading stopped, so the peak RSS
// rise of the calling process stays small whatever the bomb's size. The
// server runs here; the call runs in a fresh child process that samples its
// own RSS every few milliseconds.
import { fork } from "node:child_process";
import { createServer } from "node:http";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { createGzip } from "node:zlib";

const MiB = 1024 * 1024;

/** @param {{ inflatedBytes: number }} config */
export async function runGzipBomb({ inflatedBytes }) {
  let produced = 0;
  const server = createServer((req, res) => {
    if (req.url?.endsWith("/warm-up")) return void res.writeHead(200, { "content-type": "application/json" }).end('{"id":"warm-up"}');
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    const spaces = Buffer.alloc(MiB, " ");
    const source = new Readable({
      read() {
        if (produced >= inflatedBytes) return void this.push(null);
        produced += spaces.length;
        this.push(spaces);
      },
    });
    source.pipe(createGzip()).pipe(res);
    res.on("close", () => source.destroy());
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  try {
    const child = fork(fileURLToPath(import.meta.url), ["--child", origin], { execArgv: ["--expose-gc"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    const result = await new Promise((resolve, reject) => {
      child.once("message", resolve);
      child.once("error", reject);
      child.once("exit", (code) => code !== 0 && reject(new Error(`gzip bomb child exited with ${code}`)));
    });
    return { inflatedBytes, producedBytes: produced, ...result };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

async function child(origin) {
  const { createClient } = await import("@fdxkit/client");
  const client = createClient({ baseUrl: origin, token: "bench-token", maxRetries: 0 });
  // Warm the client's code path once on something small (the first fetch in a process compiles
  // undici's WebAssembly parser, some 30 MiB for a moment), then take the baseline.
  await client.consents.get("warm-up");
  globalThis.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
  const started = performance.now();
  const outcome = await client.consents.get("c-1").then(
    () => "resolved",
    (error) => `${error.name}: ${error.issues?.[0]?.message ?? error.message}`,
  );
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  process.send({ outcome, ms: Math.round(ms), rssRiseBytes: peak - baseline }, () => process.exit(0));
}

if (process.argv[2] === "--child") await child(process.argv[3]);
