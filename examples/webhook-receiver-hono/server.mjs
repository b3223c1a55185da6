// A webhook receiver on Hono.
//   FDX_BASE_URL=https://… FDX_TOKEN=… PORT=3000 node server.mjs
// Subscribe https://<your host>/webhooks to MAINTENANCE and CONSENT notifications.
import { serve } from "@hono/node-server";
import { createClient } from "@fdxkit/client";
import { createApp } from "./app.mjs";

const baseUrl = process.env.FDX_BASE_URL;
const token = process.env.FDX_TOKEN;
if (!baseUrl || !token) {
  console.error("Set FDX_BASE_URL and FDX_TOKEN (or run `pnpm sandbox` to try it against the local sandbox).");
  process.exit(1);
}

const client = createClient({ baseUrl, token });
const app = createApp({ client, blockedAccounts: new Set() });
// overrideGlobalObjects: false keeps Node's own Request/Response globals
// (otherwise the server swaps in its own, and an `instanceof Response`
// elsewhere in the process stops matching what fetch returns).
serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000), overrideGlobalObjects: false }, (info) => {
  console.log(`listening on http://localhost:${info.port}/webhooks`);
});
