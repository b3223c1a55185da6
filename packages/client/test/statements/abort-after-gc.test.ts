// Regression: on Node 20 a signal combined with AbortSignal.any() can be
// garbage-collected once the headers are in, so an abort after a collection
// never reached the download body. Needs --expose-gc: the test runs the
// scenario in a child process started with it.
import { readdirSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { built, distImport, runWithGc } from "../support/gc-scenario.js";

it.skipIf(!built)("an abort after a garbage collection still cancels a download", () => {
  const { dir, stdout, stderr } = runWithGc(
    (dir) => `import http from "node:http";
import { createClient } from ${distImport("index.js")};
import { saveStatement } from ${distImport("node.js")};
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
  expect(stderr).toBe("");
  expect(stdout.trim()).toBe("AbortError");
  expect(readdirSync(dir).filter((f) => f !== "scenario.mjs")).toEqual([]);
});
