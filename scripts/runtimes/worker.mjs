// The scenario in a Worker (workerd through miniflare, and edge-runtime):
// bundled with esbuild into a service-worker script. Its own fetch serves the
// webhook receiver at /webhooks and runs the scenario, then the auth entry's
// flow (auth.mjs: Workers are server runtimes), on POST /run (the body is the
// config); the answer is the steps.
import { runAuthSteps } from "./auth.mjs";
import { createReceiver, runScenario } from "./scenario.mjs";

const receiver = createReceiver();

async function handle(request) {
  const url = new URL(request.url);
  if (url.pathname === "/webhooks") return receiver.handler(request);
  if (url.pathname === "/run" && request.method === "POST") {
    const config = await request.json();
    const steps = await runScenario({ ...config, callbackUrl: config.callbackUrl }, receiver);
    steps.push(...(await runAuthSteps(config)));
    return new Response(JSON.stringify({ steps }), { headers: { "content-type": "application/json" } });
  }
  return new Response("not found", { status: 404 });
}

addEventListener("fetch", (event) => event.respondWith(handle(event.request)));
