// A webhook receiver on plain node:http.
//   FDX_BASE_URL=https://… FDX_TOKEN=… PORT=3000 node server.mjs
// Subscribe https://<your host>/webhooks to MAINTENANCE and CONSENT notifications.
import http from "node:http";
import { createClient } from "@fdxkit/client";
import { toNodeListener } from "@fdxkit/client/node";
import { createReceiver } from "./receiver.mjs";

const baseUrl = process.env.FDX_BASE_URL;
const token = process.env.FDX_TOKEN;
if (!baseUrl || !token) {
  console.error("Set FDX_BASE_URL and FDX_TOKEN (or run `pnpm sandbox` to try it against the local sandbox).");
  process.exit(1);
}

const client = createClient({ baseUrl, token });
const blockedAccounts = new Set();
const webhooks = toNodeListener(createReceiver({ client, blockedAccounts }));

const server = http.createServer((req, res) => {
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  if (path === "/webhooks") return webhooks(req, res);
  res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
});
server.listen(Number(process.env.PORT ?? 3000), () => {
  console.log(`listening on http://localhost:${/** @type {import("node:net").AddressInfo} */ (server.address()).port}/webhooks`);
});
