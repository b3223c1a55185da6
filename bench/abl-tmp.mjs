import http from "node:http";
import { startServer, TOKEN, CONSENT_ID, PROVIDER_ID, ACCOUNT_ID, statementsPath } from "./src/server.mjs";
import { createClient } from "@fdxkit/client";
const server = await startServer({ pages: 300, perPage: 50 });
const what = process.argv[2] ?? "get";
const url = `${server.origin}/consents/v1/${CONSENT_ID}`;
const headers = { authorization: `Bearer ${TOKEN}`, accept: "application/json" };
const agent = new http.Agent({ keepAlive: true });
const getJson = (u) => new Promise((resolve, reject) => {
  http.get(u, { headers, agent }, (res) => { const chunks = []; res.on("data", (c) => chunks.push(c)); res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")))); res.on("error", reject); }).on("error", reject);
});
const mk = (o) => createClient({ baseUrl: server.origin, token: TOKEN, ...o });
const variants = { sdk: mk({}), noIds: mk({ interactionIds: false }) };
async function floorPages() { let u = `${server.origin}${statementsPath}?limit=50`; let seen = 0; while (u) { const b = await getJson(u); for (const s of b.statements ?? []) if (s.statementId) seen++; const h = b.links?.next?.href; u = h ? new URL(h, server.origin).href : undefined; } return seen; }
async function sdkPages(c) { let seen = 0; for await (const s of c.statements.list({ providerId: PROVIDER_ID, accountId: ACCOUNT_ID, limit: 50 })) if (s.statementId) seen++; return seen; }
const N = 200;
const fns = what === "get"
  ? { floor: async () => { for (let i = 0; i < N; i++) await getJson(url); }, ...Object.fromEntries(Object.entries(variants).map(([k, c]) => [k, async () => { for (let i = 0; i < N; i++) await c.consents.get(CONSENT_ID); }])) }
  : { floor: floorPages, ...Object.fromEntries(Object.entries(variants).map(([k, c]) => [k, () => sdkPages(c)])) };
const per = what === "get" ? N : 300;
const R = +process.argv[3] || 30;
for (const f of Object.values(fns)) for (let i = 0; i < 3; i++) await f();
const res = Object.fromEntries(Object.keys(fns).map((k) => [k, { t: [], c: [] }]));
const names = Object.keys(fns);
for (let r = 0; r < R; r++) for (let j = 0; j < names.length; j++) { const k = names[(r + j) % names.length]; const t = performance.now(); const c = process.cpuUsage(); await fns[k](); const u = process.cpuUsage(c); res[k].t.push((performance.now() - t) * 1000 / per); res[k].c.push((u.user + u.system) / per); }
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const rel = (k, f) => med(res[k][f].map((x, i) => x / res.floor[f][i]));
for (const k of names) console.log(process.version, what, k.padEnd(6), "µs", med(res[k].t).toFixed(1).padStart(7), "cpu µs", med(res[k].c).toFixed(1).padStart(7), " /floor t", rel(k, "t").toFixed(3), "cpu", rel(k, "c").toFixed(3));
await server.close();
