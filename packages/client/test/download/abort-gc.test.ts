// Regression (nodejs/node#55428): Node's fetch follows a Request's signal
// only while the Request lives; through a custom fetch that keeps no
// reference to it, after a garbage collection the caller's abort never
// reached the download body. The body guard listens to the caller's
// signal itself for the life of the body (internal/body.ts, guardBody). Needs
// --expose-gc: the scenario runs in a child process started with it.
import { readdirSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { built, distImport, runWithGc } from "../support/gc-scenario.js";

it.skipIf(!built)("an abort after a garbage collection still cancels a download", () => {
  const { dir, stdout, stderr } = runWithGc(
    (dir) => `import http from "node:http";
import { createClient } from ${distImport("index.js")};
import { saveStatement } from ${distImport("node.js")};
// Headers and one chunk at once, then nothing: only the abort can end the download.
const server = http.createServer((req, res) => {
  res.writeHead(200, { "Content-Type": "application/pdf" });
  res.write(Buffer.alloc(1024));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = "http://127.0.0.1:" + server.address().port;
// A custom fetch that keeps no reference to the Request it passes on.
const client = createClient({ baseUrl: base, token: "t", fetch: (request) => globalThis.fetch(request) });
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
