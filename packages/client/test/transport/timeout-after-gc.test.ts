// Regression: Node's fetch holds the caller's Request only weakly; after a
// garbage collection the timeout's abort never reached a request waiting for
// headers, and the call hung. Needs --expose-gc, so it runs in a child process
// on the build (which the test command makes before testing).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist");

it.skipIf(!existsSync(path.join(dist, "index.js")))("a timeout still fires after a garbage collection", () => {
  const script = path.join(mkdtempSync(path.join(tmpdir(), "fdxkit-gc-")), "scenario.mjs");
  writeFileSync(
    script,
    `import http from "node:http";
import { createClient } from ${JSON.stringify(path.join(dist, "index.js"))};
const server = http.createServer(() => {}); // never answers
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const client = createClient({ baseUrl: "http://127.0.0.1:" + server.address().port, token: "t", timeoutMs: 300, maxRetries: 0 });
const call = client.consents.get("c1").then(() => "resolved", (e) => e.name);
const gcs = setInterval(() => globalThis.gc(), 50);
const outcome = await Promise.race([call, new Promise((r) => setTimeout(() => r("still waiting"), 5000))]);
clearInterval(gcs);
console.log(outcome);
server.closeAllConnections();
server.close();
process.exit(0);
`,
  );
  const run = spawnSync(process.execPath, ["--expose-gc", script], { encoding: "utf8", timeout: 20_000 });
  expect(run.stderr).toBe("");
  expect(run.stdout.trim()).toBe("FdxTimeoutError");
});
