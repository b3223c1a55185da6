import http from "node:http";
import { startServer, TOKEN, statementsPath } from "./src/server.mjs";
const server = await startServer({ pages: 300, perPage: 50 });
const headers = { authorization: `Bearer ${TOKEN}`, accept: "application/json" };
const agent = new http.Agent({ keepAlive: true });
const getJson = (u) => new Promise((resolve, reject) => {
  http.get(u, { headers, agent }, (res) => { const chunks = []; res.on("data", (c) => chunks.push(c)); res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")))); res.on("error", reject); }).on("error", reject);
});
async function floorPages() { let u = `${server.origin}${statementsPath}?limit=50`; let seen = 0; while (u) { const b = await getJson(u); for (const s of b.statements ?? []) if (s.statementId) seen++; const h = b.links?.next?.href; u = h ? new URL(h, server.origin).href : undefined; } return seen; }
for (let i = 0; i < 5; i++) await floorPages();
for (let i = 0; i < 60; i++) await floorPages();
await server.close();
