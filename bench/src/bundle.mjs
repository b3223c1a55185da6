// Bundle size: what a browser app pays for the same typical use — a client
// with a bearer token from a function, an account's statements page after
// page, each statement's PDF downloaded as a Blob, and an unauthorized error
// branched on — written with each library. Measured as scripts/check-bundle.mjs
// measures ours: esbuild, browser platform, minified, ESM with code
// splitting, gzip -9 of what loads up front (the entry chunk and every chunk
// it imports statically; chunks behind import() are reported apart).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TYPICAL_USE, measureEntry } from "../../scripts/bundle-size.mjs";

const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export const ENTRIES = [
  {
    name: "@fdxkit/client",
    sdk: true,
    // The same entry as the project's own size budget (scripts/check-bundle.mjs).
    contents: TYPICAL_USE,
  },
  {
    name: "openapi-fetch",
    contents: `
import createClient from "openapi-fetch";
const client = createClient({ baseUrl: location.origin });
client.use({ onRequest({ request }) { request.headers.set("Authorization", "Bearer " + (sessionStorage.getItem("t") ?? "")); } });
export async function run() {
  let page = await client.GET("/statements/{version}/{providerId}/{accountId}", { params: { path: { version: "v2", providerId: "p", accountId: "a" }, query: { limit: 50 } } });
  for (;;) {
    if (page.error) {
      if (page.error.code === "1205") location.reload();
      throw new Error(page.error.message);
    }
    for (const s of page.data.statements ?? []) {
      const doc = await client.GET(s.links[0].href, { parseAs: "blob" });
      if (doc.error) throw new Error(doc.error.message);
      document.body.append(URL.createObjectURL(doc.data));
    }
    const next = page.data.links?.next?.href;
    if (!next) break;
    page = await client.GET(next);
  }
}
`,
  },
  {
    name: "ky",
    contents: `
import ky, { HTTPError } from "ky";
const api = ky.create({ hooks: { beforeRequest: [(request) => { request.headers.set("Authorization", "Bearer " + (sessionStorage.getItem("t") ?? "")); }] } });
export async function run() {
  try {
    let url = new URL("/statements/v2/p/a?limit=50", location.origin).href;
    while (url) {
      const page = await api.get(url).json();
      for (const s of page.statements ?? []) {
        const blob = await api.get(new URL(s.links[0].href, location.origin).href, { headers: { Accept: "application/pdf" } }).blob();
        document.body.append(URL.createObjectURL(blob));
      }
      const next = page.links?.next?.href;
      url = next ? new URL(next, location.origin).href : undefined;
    }
  } catch (e) {
    if (e instanceof HTTPError && (await e.response.json()).code === "1205") location.reload();
    throw e;
  }
}
`,
  },
  {
    name: "axios",
    contents: `
import axios from "axios";
const api = axios.create({ baseURL: location.origin });
api.interceptors.request.use((config) => { config.headers.Authorization = "Bearer " + (sessionStorage.getItem("t") ?? ""); return config; });
export async function run() {
  try {
    let url = "/statements/v2/p/a?limit=50";
    while (url) {
      const { data: page } = await api.get(url);
      for (const s of page.statements ?? []) {
        const { data: blob } = await api.get(s.links[0].href, { responseType: "blob", headers: { Accept: "application/pdf" } });
        document.body.append(URL.createObjectURL(blob));
      }
      url = page.links?.next?.href;
    }
  } catch (e) {
    if (axios.isAxiosError(e) && e.response?.data?.code === "1205") location.reload();
    throw e;
  }
}
`,
  },
  {
    name: "@octokit/core",
    contents: `
import { Octokit } from "@octokit/core";
const octokit = new Octokit({ baseUrl: location.origin });
octokit.hook.before("request", (options) => { options.headers.authorization = "Bearer " + (sessionStorage.getItem("t") ?? ""); });
export async function run() {
  try {
    let page = (await octokit.request("GET /statements/{version}/{providerId}/{accountId}", { version: "v2", providerId: "p", accountId: "a", limit: 50 })).data;
    for (;;) {
      for (const s of page.statements ?? []) {
        const { data } = await octokit.request({ method: "GET", url: s.links[0].href, headers: { accept: "application/pdf" } });
        document.body.append(URL.createObjectURL(new Blob([data], { type: "application/pdf" })));
      }
      const next = page.links?.next?.href;
      if (!next) break;
      page = (await octokit.request({ method: "GET", url: next })).data;
    }
  } catch (e) {
    if (e.status === 401 && e.response?.data?.code === "1205") location.reload();
    throw e;
  }
}
`,
  },
  {
    name: "hand-written fetch (no library)",
    baseline: true,
    contents: `
const auth = () => ({ Authorization: "Bearer " + (sessionStorage.getItem("t") ?? "") });
async function get(href, accept) {
  const res = await fetch(new URL(href, location.origin), { headers: { ...auth(), Accept: accept } });
  if (!res.ok) {
    const body = await res.json().catch(() => ({}));
    if (body.code === "1205") location.reload();
    throw new Error(body.message ?? res.statusText);
  }
  return res;
}
export async function run() {
  let href = "/statements/v2/p/a?limit=50";
  while (href) {
    const page = await (await get(href, "application/json")).json();
    for (const s of page.statements ?? []) document.body.append(URL.createObjectURL(await (await get(s.links[0].href, "application/pdf")).blob()));
    href = page.links?.next?.href;
  }
}
`,
  },
];

export async function runBundle() {
  const entries = [];
  for (const entry of ENTRIES) {
    const size = await measureEntry(entry.contents, { resolveDir: benchDir });
    entries.push({ name: entry.name, sdk: Boolean(entry.sdk), baseline: Boolean(entry.baseline), ...size });
  }
  return { method: "esbuild (browser, minify, ESM, splitting), gzip -9 of the up-front chunks; kB = 1000 bytes", entries };
}
