// Regression (nodejs/node#55428): Node's fetch follows a Request's signal
// only while the Request lives. A custom fetch that passes the SDK's Request
// on and keeps no reference to it loses the link after a garbage
// collection: the timeout's abort never reached the request, and the call
// hung. The attempt therefore settles on its own timer (internal/abort.ts,
// `race`). Needs --expose-gc, so the scenario runs in a child process on the
// build (the test command builds before testing).
import { expect, it } from "vitest";
import { built, distImport, runWithGc } from "../support/gc-scenario.js";

it.skipIf(!built)("a timeout still fires after a garbage collection, through a custom fetch that drops the Request", () => {
  const { stdout, stderr } = runWithGc(
    () => `import http from "node:http";
import { createClient } from ${distImport("index.js")};
const server = http.createServer(() => {}); // never answers
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const client = createClient({
  baseUrl: "http://127.0.0.1:" + server.address().port,
  token: "t",
  timeoutMs: 300,
  maxRetries: 0,
  fetch: (request) => globalThis.fetch(request),
});
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
