// The scenario in a server runtime (Node, Bun, Deno): serves the webhook
// receiver with the runtime's own server, runs the shared scenario, the auth
// entry's flow (auth.mjs), then what the Node entry and the mock's real server do in this runtime. Prints one
// line `FDXKIT_RESULT <json>` and then must exit on its own: a runtime kept
// alive by something the packages left open is a failure the harness reports.
//
//   node|bun|deno run host.mjs '<config json>'
import { runAuthSteps } from "./auth.mjs";
import { createReceiver, runScenario } from "./scenario.mjs";
import { HOST_STEPS as NODE_STEPS } from "./steps.mjs";

const runtime = globalThis.Bun ? "bun" : globalThis.Deno ? "deno" : "node";
const args = globalThis.Deno ? globalThis.Deno.args : process.argv.slice(2);
const config = JSON.parse(args[0]);

/** The runtime's own server, serving `handler` on 127.0.0.1; resolves with { url, close }. */
async function serve(handler) {
  if (runtime === "bun") {
    const server = globalThis.Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: handler });
    return { url: `http://127.0.0.1:${server.port}`, close: () => server.stop(true) };
  }
  if (runtime === "deno") {
    const server = globalThis.Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, handler);
    return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
  }
  return serveWithNodeHttp(handler);
}

/** node:http with the Node entry's toNodeListener (in Bun and Deno, their node:http). */
async function serveWithNodeHttp(handler) {
  const { createServer } = await import("node:http");
  const { toNodeListener } = await import("@fdxkit/client/node");
  const server = createServer(toNodeListener(handler));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    // Deno's node:http waits for idle keep-alive connections on close(); Node's closes them.
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  };
}

async function nodeEntrySteps() {
  const steps = [];
  const step = async (name, fn) => {
    try {
      steps.push({ name, ok: true, detail: (await fn()) ?? "" });
    } catch (error) {
      steps.push({ name, ok: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    }
  };
  const check = (condition, message) => {
    if (!condition) throw new Error(message);
  };
  const { createClient } = await import("@fdxkit/client");
  const client = createClient({ baseUrl: config.baseUrl, productsUrl: config.productsUrl, token: config.token });

  await step(NODE_STEPS[0], async () => {
    const receiver = createReceiver();
    const server = await serveWithNodeHttp(receiver.handler);
    try {
      const body = JSON.stringify(await client.subscriptions.sendTestEvent(await subscriptionId(client)));
      const ok = await fetch(`${server.url}/webhooks`, { method: "POST", headers: { "content-type": "application/json" }, body });
      check(ok.status === 200 && receiver.received.length === 1, `POST answered ${ok.status}`);
      const get = await fetch(`${server.url}/webhooks`);
      await get.arrayBuffer();
      check(get.status === 405, `GET answered ${get.status}`);
      const big = await fetch(`${server.url}/webhooks`, { method: "POST", headers: { "content-type": "application/json" }, body: "x".repeat(100 * 1024) });
      await big.arrayBuffer();
      check(big.status === 413, `a 100 KiB body answered ${big.status}`);
      return "200, 405, 413";
    } finally {
      await server.close();
    }
  });

  await step(NODE_STEPS[1], async () => {
    const { saveStatement } = await import("@fdxkit/client/node");
    const { readFile } = await import("node:fs/promises");
    let statement;
    for await (const s of client.statements.list({ providerId: config.providerId, accountId: config.accountId, limit: 5 })) {
      if (s.status === "AVAILABLE") {
        statement = s;
        break;
      }
    }
    check(statement, "no AVAILABLE statement");
    const file = `${config.workDir}/${runtime}-statement.pdf`;
    const saved = await saveStatement(await client.statements.download(statement), file);
    const bytes = await readFile(file);
    check(bytes.subarray(0, 5).toString() === "%PDF-" && bytes.byteLength === saved.bytes, `file holds ${bytes.byteLength} bytes, saved ${saved.bytes}`);
    return `${saved.bytes} bytes`;
  });

  await step(NODE_STEPS[2], async () => {
    const { startMockServer } = await import("@fdxkit/mock/server");
    const mock = await startMockServer({ port: 0 });
    try {
      const local = createClient({ baseUrl: mock.baseUrl, productsUrl: mock.productsUrl, token: mock.token });
      const consent = mock.seed.consents[0];
      const grant = await local.consents.get(consent.id);
      check(grant.id === consent.id, "wrong consent");
      const page = await local.statements.list({ providerId: mock.seed.providerId, accountId: mock.seed.accounts[0].accountId }).toArray({ max: 3 });
      check(page.length === 3, `${page.length} statements`);
      return mock.baseUrl;
    } finally {
      await mock.close();
    }
  });
  return steps;
}

async function subscriptionId(client) {
  const created = await client.subscriptions.create({ category: "CONSENT", type: "CONSENT_UPDATED", callbackUrl: "https://hooks.example.com/fdx/node" });
  return created.subscriptionId;
}

const receiver = createReceiver();
const server = await serve(receiver.handler);
let steps;
try {
  steps = await runScenario({ ...config, callbackUrl: `${server.url}/webhooks` }, receiver);
  steps.push(...(await runAuthSteps(config)));
  steps.push(...(await nodeEntrySteps()));
} finally {
  await server.close();
}
console.log(`FDXKIT_RESULT ${JSON.stringify({ runtime, version: versionOf(), steps })}`);

function versionOf() {
  if (runtime === "bun") return globalThis.Bun.version;
  if (runtime === "deno") return globalThis.Deno.version.deno;
  return process.versions.node;
}
