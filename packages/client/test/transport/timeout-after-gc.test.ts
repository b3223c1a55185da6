// Regression: Node's fetch holds the caller's Request only weakly; after a
// garbage collection the timeout's abort never reached a request waiting for
// headers, and the call hung. Needs --expose-gc, so it runs in a child process
// on the build (which the test command makes before testing).
import { expect, it } from "vitest";
import { built, distImport, runWithGc } from "../support/gc-scenario.js";

it.skipIf(!built)("a timeout still fires after a garbage collection", () => {
  const { stdout, stderr } = runWithGc(
    () => `import http from "node:http";
import { createClient } from ${distImport("index.js")};
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
  expect(stderr).toBe("");
  expect(stdout.trim()).toBe("FdxTimeoutError");
});
