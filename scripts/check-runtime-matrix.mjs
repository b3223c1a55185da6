#!/usr/bin/env node
// Runtime matrix: one scenario (scripts/runtimes/scenario.mjs) in every
// runtime the README claims, against the sandbox's real server, which this
// script starts from Node (a fresh one per runtime). The packages are imported
// as each runtime's users would: the built dist of @fdxkit/client and
// @fdxkit/mock by package name (Node, Bun, Deno), bundled with esbuild
// (workerd through miniflare, edge-runtime), or bundled and served to the
// browser from a second 127.0.0.1 port, so every call is CORS (Chromium,
// Firefox over WebDriver BiDi, WebKitGTK over plain W3C WebDriver). Server
// runtimes also run the auth entry's flow (runtimes/auth.mjs) against the
// sandbox's IdP; browsers do not (the entry holds a client secret).
//
//   node scripts/check-runtime-matrix.mjs [--out-dir DIR] [RUNTIME ...]
//   (default: every runtime; FDXKIT_MATRIX=node,bun narrows it too)
//
// Nothing is downloaded but from npm and apt: the runtimes and drivers are npm
// packages pinned below, installed on first use into
// node_modules/.cache/fdxkit-runtimes/tools; the browsers are Debian packages,
// installed here when missing and running as root. Writes DIR/matrix.json
// (one entry per runtime: { runtime, version, ok, skipped, steps, error,
// installSeconds, runSeconds }) for scripts/check.mjs. In CI a runtime that
// cannot start is a failure, never a skip.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "./chromium.mjs";
import { ensureTools, importTool, toolBin, toolPath, TOOLS, toolVersion } from "./runtime-tools.mjs";
import { AUTH_STEPS, EXIT_STEP, HOST_STEPS, SCENARIO_STEPS } from "./runtimes/steps.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cacheRoot = path.join(root, "node_modules", ".cache", "fdxkit-runtimes");
const appDir = path.join(cacheRoot, "app");
const workDir = path.join(cacheRoot, "work");

const APT = { firefox: ["firefox-esr"], webkit: ["webkit2gtk-driver", "xvfb", "xauth"], chromium: ["chromium"] };
const FIREFOX_PATH = process.env.FIREFOX_PATH ?? "/usr/bin/firefox-esr";
const WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver";
const MINIBROWSER = process.env.MINIBROWSER_PATH ?? "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

export const RUNTIMES = ["node", "bun", "deno", "workerd", "edge-runtime", "chromium", "firefox", "webkit"];
const RUN_TIMEOUT_MS = 60_000;

// --- arguments ---------------------------------------------------------------
const args = process.argv.slice(2);
let outDir = path.join(root, ".vitest-results", "matrix");
const chosen = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--out-dir") outDir = path.resolve(args[++i]);
  else if (RUNTIMES.includes(args[i])) chosen.push(args[i]);
  else {
    console.error(`unknown argument ${args[i]}\nusage: check-runtime-matrix.mjs [--out-dir DIR] [${RUNTIMES.join("|")} ...]`);
    process.exit(2);
  }
}
if (chosen.length === 0) chosen.push(...(process.env.FDXKIT_MATRIX ?? RUNTIMES.join(",")).split(",").filter(Boolean));
const unknown = chosen.filter((r) => !RUNTIMES.includes(r));
if (unknown.length) {
  console.error(`unknown runtime ${unknown.join(", ")} (known: ${RUNTIMES.join(", ")})`);
  process.exit(2);
}

const seconds = (since) => Math.round((Date.now() - since) / 100) / 10;
const isRoot = process.getuid?.() === 0;
const hasApt = spawnSync("which", ["apt-get"]).status === 0;

// --- setup -------------------------------------------------------------------
/** The built dist of both packages (the check builds before; a lone run builds here). */
function ensureBuilt() {
  const needed = [
    "packages/client/dist/index.js",
    "packages/client/dist/webhooks.js",
    "packages/client/dist/node.js",
    "packages/client/dist/auth.js",
    "packages/mock/dist/server.js",
  ];
  if (needed.every((f) => existsSync(path.join(root, f)))) return;
  const pnpm = process.env.PNPM ?? "pnpm";
  console.log("building @fdxkit/client and @fdxkit/mock");
  const r = spawnSync(`${pnpm} --filter @fdxkit/client --filter @fdxkit/mock run build`, { cwd: root, stdio: "inherit", shell: true });
  if (r.status !== 0) throw new Error("build failed");
}

/**
 * A user's app: the packages packed as npm ships them and installed from the
 * tarballs with npm (peer dependencies left out: no msw, so the mock's
 * `/server` entry is shown to need none), beside the scenario files. Deno
 * reads node_modules because a package.json is there.
 */
function prepareApp() {
  rmSync(appDir, { recursive: true, force: true });
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(appDir, { recursive: true });
  mkdirSync(workDir, { recursive: true });
  const pnpm = (process.env.PNPM ?? "pnpm").split(" ");
  const tarballs = [];
  for (const name of ["client", "mock"]) {
    const r = spawnSync(pnpm[0], [...pnpm.slice(1), "pack", "--pack-destination", appDir], { cwd: path.join(root, "packages", name), encoding: "utf8" });
    if (r.status !== 0) throw new Error(`pnpm pack of @fdxkit/${name} failed: ${r.stderr}`);
    tarballs.push(`./${readdirSync(appDir).find((f) => f.startsWith(`fdxkit-${name}-`) && f.endsWith(".tgz"))}`);
  }
  writeFileSync(path.join(appDir, "package.json"), JSON.stringify({ name: "fdxkit-matrix-app", private: true, type: "module" }));
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, ["install", "--prefer-offline", "--no-audit", "--no-fund", "--no-package-lock", "--omit=peer", "--loglevel=error", ...tarballs], {
    cwd: appDir,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (r.status !== 0) throw new Error("npm install of the packed packages failed");
  cpSync(path.join(root, "scripts", "runtimes"), appDir, { recursive: true });
}

async function bundle(entry, outfile, options) {
  const esbuild = await import("esbuild");
  await esbuild.build({
    entryPoints: [path.join(appDir, entry)],
    outfile: path.join(appDir, "dist", outfile),
    bundle: true,
    logLevel: "error",
    target: "es2022",
    absWorkingDir: appDir,
    ...options,
  });
  return readFileSync(path.join(appDir, "dist", outfile), "utf8");
}

/** Debian packages a runtime needs: installed when missing and root; otherwise the reason it cannot run. */
function ensureApt(runtime) {
  const present = {
    firefox: () => existsSync(FIREFOX_PATH),
    webkit: () => existsSync(WEBKIT_DRIVER) && existsSync(MINIBROWSER) && spawnSync("which", ["xvfb-run"]).status === 0,
    chromium: () => existsSync(CHROMIUM_PATH),
  }[runtime];
  if (!present || present()) return { seconds: 0 };
  if (!isRoot || !hasApt) return { missing: `needs the Debian packages ${APT[runtime].join(" ")} (install them, or run as root)` };
  const started = Date.now();
  console.log(`installing ${APT[runtime].join(" ")} (apt)`);
  const r = spawnSync(
    "sh",
    [
      "-c",
      `(apt-get install -y -qq --no-install-recommends ${APT[runtime].join(" ")} || (apt-get update -qq && apt-get install -y -qq --no-install-recommends ${APT[runtime].join(" ")})) > /dev/null`,
    ],
    {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    },
  );
  if (r.status !== 0 || !present()) return { missing: `apt-get install ${APT[runtime].join(" ")} failed` };
  return { seconds: seconds(started) };
}

// --- runners -----------------------------------------------------------------
/** Spawns a host runtime on host.mjs; resolves with its steps, plus whether it exited on its own. */
function runHost(command, argv) {
  return new Promise((resolve) => {
    const child = spawn(command, argv, { cwd: appDir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
    let out = "";
    let err = "";
    let result;
    let exitTimer;
    const overall = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.stdout.on("data", (d) => {
      out += d;
      const line = out.split("\n").find((l) => l.startsWith("FDXKIT_RESULT "));
      if (line && !result) {
        result = JSON.parse(line.slice("FDXKIT_RESULT ".length));
        // Done: from here it has 10 s to exit by itself.
        exitTimer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      }
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("error", (error) => {
      clearTimeout(overall);
      resolve({ error: `could not start ${command}: ${error.message}` });
    });
    child.on("close", (code, signal) => {
      clearTimeout(overall);
      clearTimeout(exitTimer);
      if (!result) {
        resolve({ error: `exited with ${code ?? signal} before a result${err ? `: ${err.trim().split("\n").slice(-5).join(" | ")}` : ""}` });
        return;
      }
      const exited = signal === null;
      result.steps.push(
        exited
          ? { name: EXIT_STEP, ok: code === 0, ...(code === 0 ? { detail: "" } : { error: `exit code ${code}` }) }
          : { name: EXIT_STEP, ok: false, error: "still running 10 s after its work was done (killed)" },
      );
      resolve(result);
    });
  });
}

async function runWorkerd(config) {
  const { Miniflare } = await importTool("miniflare");
  const script = await bundle("worker.mjs", "worker-workerd.js", { format: "iife", platform: "browser", conditions: ["workerd", "worker", "browser"] });
  const mf = new Miniflare({ script, compatibilityDate: "2026-04-01", host: "127.0.0.1", port: 0 });
  try {
    const url = await mf.ready;
    const response = await fetch(new URL("/run", url), {
      method: "POST",
      body: JSON.stringify({ ...config, callbackUrl: new URL("/webhooks", url).href }),
      signal: AbortSignal.timeout(RUN_TIMEOUT_MS),
    });
    if (!response.ok) return { error: `POST /run answered ${response.status}: ${(await response.text()).slice(0, 500)}` };
    const workerdPackage = JSON.parse(readFileSync(toolPath("workerd", "package.json"), "utf8"));
    return { ...(await response.json()), version: `workerd ${workerdPackage.version} (miniflare ${toolVersion("miniflare")})` };
  } finally {
    await mf.dispose();
  }
}

async function runEdgeRuntime(config) {
  const { EdgeRuntime, runServer } = await importTool("edge-runtime");
  const initialCode = await bundle("worker.mjs", "worker-edge.js", { format: "iife", platform: "browser", conditions: ["edge-light", "worker", "browser"] });
  const runtime = new EdgeRuntime({ initialCode });
  const server = await runServer({ runtime, port: 0, host: "127.0.0.1" });
  try {
    const base = server.url.endsWith("/") ? server.url : `${server.url}/`;
    const response = await fetch(`${base}run`, {
      method: "POST",
      body: JSON.stringify({ ...config, callbackUrl: `${base}webhooks` }),
      signal: AbortSignal.timeout(RUN_TIMEOUT_MS),
    });
    if (!response.ok) return { error: `POST /run answered ${response.status}: ${(await response.text()).slice(0, 500)}` };
    return { ...(await response.json()), version: `edge-runtime ${toolVersion("edge-runtime")}` };
  } finally {
    await server.close();
  }
}

/** Serves the browser bundle from its own 127.0.0.1 port; resolves with the page URL for `config`. */
async function servePage(config) {
  const script = await bundle("browser.mjs", "browser.js", { format: "esm", platform: "browser" });
  const html = `<!doctype html><meta charset="utf-8"><title>fdxkit matrix</title><script type="module" src="/browser.js"></script>`;
  const server = createServer((req, res) => {
    if (req.url === "/browser.js") res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    else if (req.url === "/" || req.url?.startsWith("/?")) res.writeHead(200, { "content-type": "text/html" }).end(html);
    else res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/#${encodeURIComponent(JSON.stringify(config))}`;
  return { url, close: () => new Promise((resolve) => server.close(resolve)) };
}

async function runPuppeteer(config, launchOptions) {
  const puppeteer = (await importTool("puppeteer-core")).default;
  const page = await servePage(config);
  const browser = await puppeteer.launch({ headless: true, ...launchOptions });
  const problems = [];
  try {
    const tab = await browser.newPage();
    tab.on("pageerror", (error) => problems.push(String(error?.message ?? error)));
    await tab.goto(page.url);
    await tab.waitForFunction(() => window.__fdxkitResult, { timeout: RUN_TIMEOUT_MS, polling: 100 });
    const result = JSON.parse(await tab.evaluate(() => window.__fdxkitResult));
    if (result.error) return { error: result.error };
    return { steps: result.steps, version: await browser.version() };
  } catch (error) {
    return { error: `${error.message}${problems.length ? ` (page errors: ${problems.join("; ")})` : ""}` };
  } finally {
    await browser.close().catch(() => {});
    await page.close();
  }
}

const runChromium = (config) => runPuppeteer(config, { executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS.filter((f) => f !== "--headless") });
const runFirefox = (config) => runPuppeteer(config, { browser: "firefox", protocol: "webDriverBiDi", executablePath: FIREFOX_PATH });

/** WebKitGTK: WebKitWebDriver driving MiniBrowser under a virtual X server, spoken to in plain W3C WebDriver. */
async function runWebkit(config) {
  const port = await freePort();
  const driver = spawn("xvfb-run", ["-a", WEBKIT_DRIVER, `--port=${port}`], { stdio: ["ignore", "ignore", "pipe"], detached: true });
  let driverErr = "";
  driver.stderr.on("data", (d) => (driverErr += d));
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, p, body) => {
    const r = await fetch(`${base}${p}`, { method, headers: { "content-type": "application/json" }, body: body && JSON.stringify(body) });
    const json = await r.json();
    if (!r.ok) throw new Error(`WebDriver ${method} ${p}: ${json.value?.message ?? r.status}`);
    return json.value;
  };
  const page = await servePage(config);
  let session;
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const ready = await fetch(`${base}/status`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline || driver.exitCode !== null) throw new Error(`WebKitWebDriver did not start: ${driverErr.trim().slice(-300)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    session = await call("POST", "/session", {
      capabilities: { alwaysMatch: { "webkitgtk:browserOptions": { binary: MINIBROWSER, args: ["--automation"] } } },
    });
    const version = `WebKitGTK ${session.capabilities.browserVersion}`;
    await call("POST", `/session/${session.sessionId}/url`, { url: page.url });
    const until = Date.now() + RUN_TIMEOUT_MS;
    for (;;) {
      const value = await call("POST", `/session/${session.sessionId}/execute/sync`, { script: "return window.__fdxkitResult || null", args: [] });
      if (value) {
        const result = JSON.parse(value);
        return result.error ? { error: result.error } : { steps: result.steps, version };
      }
      if (Date.now() > until) throw new Error("no result from the page");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    return { error: error.message };
  } finally {
    if (session) await call("DELETE", `/session/${session.sessionId}`).catch(() => {});
    // xvfb-run started Xvfb and the driver in its own process group: end that group only.
    try {
      process.kill(-driver.pid, "SIGTERM");
    } catch {}
    await page.close();
  }
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const hostArgs = (config) => [path.join(appDir, "host.mjs"), JSON.stringify(config)];
const RUNNERS = {
  node: (config) => runHost(process.execPath, hostArgs(config)),
  bun: (config) => runHost(toolBin("bun"), ["run", ...hostArgs(config)]),
  // The SDK needs the network to 127.0.0.1 only; the Node-entry steps read and write files in the work dir.
  deno: (config) =>
    runHost(toolBin("deno"), ["run", "--quiet", "--allow-net=127.0.0.1", `--allow-read=${appDir},${workDir}`, `--allow-write=${workDir}`, ...hostArgs(config)]),
  workerd: runWorkerd,
  "edge-runtime": runEdgeRuntime,
  chromium: runChromium,
  firefox: runFirefox,
  webkit: runWebkit,
};

/** Server runtimes: they run the auth entry (it holds a client secret; browsers never get it, nor the IdP's credentials). */
const SERVER_RUNTIMES = ["node", "bun", "deno", "workerd", "edge-runtime"];

/** Steps each runtime must report: the scenario's; in server runtimes the auth flow's; in Node, Bun and Deno what the Node entry and the mock's server do, and a clean exit. */
export function expectedSteps(runtime) {
  const host = ["node", "bun", "deno"].includes(runtime);
  return [...SCENARIO_STEPS, ...(SERVER_RUNTIMES.includes(runtime) ? AUTH_STEPS : []), ...(host ? [...HOST_STEPS, EXIT_STEP] : [])];
}

// --- main --------------------------------------------------------------------
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const results = [];
let setupError;
let toolsInstall = { seconds: 0 };
let appSeconds = 0;
try {
  ensureBuilt();
  toolsInstall = ensureTools();
  const appStarted = Date.now();
  prepareApp();
  appSeconds = seconds(appStarted);
} catch (error) {
  setupError = error instanceof Error ? error.message : String(error);
}
const { startMockServer } = setupError ? {} : await import(pathToFileURL(path.join(root, "packages", "mock", "dist", "server.js")).href);

for (const runtime of chosen) {
  const entry = { runtime, version: undefined, ok: false, skipped: false, steps: [], error: undefined, installSeconds: 0, runSeconds: 0 };
  results.push(entry);
  console.log(`\n▷ ${runtime}`);
  if (setupError) {
    entry.error = `setup failed: ${setupError}`;
    continue;
  }
  const apt = ensureApt(runtime);
  entry.installSeconds = apt.seconds ?? 0;
  if (apt.missing) {
    // Outside CI a developer without the browser is told, not failed; CI must run it.
    entry.error = apt.missing;
    entry.skipped = !process.env.CI;
    continue;
  }
  const mock = await startMockServer({ port: 0 });
  const config = {
    baseUrl: mock.baseUrl,
    productsUrl: mock.productsUrl,
    token: mock.token,
    consentId: mock.seed.consents[0].id,
    providerId: mock.seed.providerId,
    accountId: mock.seed.accounts[0].accountId,
    workDir,
    // The sandbox IdP's client, and the user who signs in at its form (auth.mjs), for server runtimes only.
    ...(SERVER_RUNTIMES.includes(runtime) && {
      auth: {
        idpUrl: mock.idpUrl,
        clientId: mock.clientId,
        clientSecret: mock.clientSecret,
        username: mock.seed.users[0].username,
        password: mock.seed.users[0].password,
      },
    }),
  };
  const started = Date.now();
  try {
    const result = await RUNNERS[runtime](config);
    entry.version = result.version;
    entry.steps = result.steps ?? [];
    entry.error = result.error;
  } catch (error) {
    entry.error = error instanceof Error ? error.message : String(error);
  } finally {
    entry.runSeconds = seconds(started);
    await mock.close();
  }
  const names = entry.steps.map((s) => s.name);
  const missing = expectedSteps(runtime).filter((n) => !names.includes(n));
  if (!entry.error && missing.length) entry.error = `steps not reported: ${missing.join(", ")}`;
  entry.ok = !entry.error && entry.steps.every((s) => s.ok);
  for (const s of entry.steps) console.log(`  ${s.ok ? "✔" : "✘"} ${s.name}${s.ok ? (s.detail ? ` — ${s.detail}` : "") : ` — ${s.error}`}`);
  if (entry.error) console.log(`  ✘ ${entry.error}`);
}
const summary = { tools: TOOLS, toolsInstallSeconds: toolsInstall.seconds, appSeconds, results };
writeFileSync(path.join(outDir, "matrix.json"), JSON.stringify(summary, null, 2));

console.log(
  `\nRuntime matrix (npm tools ${toolsInstall.cached ? "cached" : `installed in ${toolsInstall.seconds} s`}; packages packed and installed in ${appSeconds} s):`,
);
for (const r of results) {
  const mark = r.skipped ? "–" : r.ok ? "✔" : "✘";
  const count = `${r.steps.filter((s) => s.ok).length}/${r.steps.length} steps`;
  const times = `${r.installSeconds ? `install ${r.installSeconds} s, ` : ""}run ${r.runSeconds} s`;
  console.log(`  ${mark} ${r.runtime}${r.version ? ` (${r.version})` : ""}: ${r.skipped ? "skipped" : count} (${times})${r.error ? ` — ${r.error}` : ""}`);
}
process.exit(results.every((r) => r.ok || r.skipped) ? 0 : 1);
