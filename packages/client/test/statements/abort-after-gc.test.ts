// Regression: on Node 20 a signal combined with AbortSignal.any() can be
// garbage-collected once the headers are in, so an abort after a collection
// never reached the download body. Needs --expose-gc: the test runs the
// scenario in a child process started with it.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(here, "../../dist");

// Runs on the build, which the test command makes before testing.
it.skipIf(!existsSync(path.join(dist, "index.js")))("an abort after a garbage collection still cancels a download", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "fdxkit-gc-"));
  const script = path.join(dir, "scenario.mjs");
  writeFileSync(
    script,
    `import http from "node:http";
import { createClient } from ${JSON.stringify(path.join(dist, "index.js"))};
import { saveStatement } from ${JSON.stringify(path.join(dist, "node.js"))};
// Headers at once, then a chunk every 20 ms for a long time.
const server = http.createServer((req, res) => {
  res.writeHead(200, { "Content-Type": "application/pdf" });
  const timer = setInterval(() => res.write(Buffer.alloc(1024)), 20);
  res.on("close", () => clearInterval(timer));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = "http://127.0.0.1:" + server.address().port;
const client = createClient({ baseUrl: base, token: "t" });
const controller = new AbortController();
const doc = await client.statements.download("/s/1", { signal: controller.signal });
const saving = saveStatement(doc, ${JSON.stringify(path.join(dir, "out.pdf"))});
await new Promise((r) => setTimeout(r, 100));
for (let i = 0; i < 5; i++) globalThis.gc();
controller.abort();
const outcome = await Promise.race([
  saving.then(() => "saved", (e) => e.name),
  new Promise((r) => setTimeout(() => r("still running"), 3000)),
]);
console.log(outcome);
server.closeAllConnections();
server.close();
process.exit(0);
`,
  );
  const run = spawnSync(process.execPath, ["--expose-gc", script], { encoding: "utf8", timeout: 20_000 });
  expect(run.stderr).toBe("");
  expect(run.stdout.trim()).toBe("AbortError");
  expect(readdirSync(dir).filter((f) => f !== "scenario.mjs")).toEqual([]);
});
