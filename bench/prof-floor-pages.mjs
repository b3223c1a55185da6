import http from "node:http";
import { startServer, TOKEN, statementsPath } from "./src/server.mjs";
const server = await startServer({ pages: 300, perPage: 50 });
const headers = { Authorization: `Bearer ${TOKEN}`, Accept: "application/json" };
const keepAlive = new http.Agent({ keepAlive: true });
function httpGetJson(url) { return new Promise((resolve, reject) => { http.get(url, { headers, agent: keepAlive }, (res) => { const chunks = []; res.on("data", (c) => chunks.push(c)); res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")))); res.on("error", reject); }).on("error", reject); }); }
async function floorPages() { let url = `${server.origin}${statementsPath}?limit=50`; let seen = 0;
  while (url) { const body = await httpGetJson(url); for (const s of body.statements ?? []) if (s.statementId) seen++; const href = body.links?.next?.href; url = href ? new URL(href, server.origin).href : undefined; } return seen; }
for (let i = 0; i < 5; i++) await floorPages();
const t = performance.now(); for (let i = 0; i < 20; i++) await floorPages(); console.log(((performance.now() - t) / 20 / 300 * 1000).toFixed(1), "µs/page");
await server.close();
