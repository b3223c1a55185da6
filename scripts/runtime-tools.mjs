// The npm packages the runtime matrix (scripts/check-runtime-matrix.mjs) and
// the webhook benchmark (bench/src/webhook-receive.mjs) run on, pinned and
// installed on first use into node_modules/.cache/fdxkit-runtimes/tools (the
// npm registry is the only network this project relies on; nothing else is
// downloaded: bun and deno ship their binaries as npm packages).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const toolsDir = path.join(root, "node_modules", ".cache", "fdxkit-runtimes", "tools");

/**
 * Pinned. miniflare and puppeteer-core are the last versions whose `engines`
 * allow Node 20 (later ones need Node 22).
 */
export const TOOLS = {
  bun: "1.4.5",
  deno: "2.9.6",
  miniflare: "4.20260426.0",
  "edge-runtime": "4.0.1",
  "puppeteer-core": "24.43.1",
};

const seconds = (since) => Math.round((Date.now() - since) / 100) / 10;

/** Installs the pinned tools once (a stamp file names what is there); resolves with how long it took. */
export function ensureTools({ log = console.log } = {}) {
  const stamp = path.join(toolsDir, "tools.json");
  const wanted = JSON.stringify(TOOLS);
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === wanted) return { seconds: 0, cached: true };
  const started = Date.now();
  rmSync(toolsDir, { recursive: true, force: true });
  mkdirSync(toolsDir, { recursive: true });
  writeFileSync(path.join(toolsDir, "package.json"), JSON.stringify({ name: "fdxkit-runtime-tools", private: true }));
  const specs = Object.entries(TOOLS).map(([name, version]) => `${name}@${version}`);
  log(`installing ${specs.join(" ")} from the npm registry into ${path.relative(root, toolsDir)}`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, ["install", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error", ...specs], {
    cwd: toolsDir,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (r.status !== 0) throw new Error(`npm install ${specs.join(" ")} failed`);
  writeFileSync(stamp, wanted);
  return { seconds: seconds(started), cached: false };
}

export const toolPath = (...p) => path.join(toolsDir, "node_modules", ...p);
export const toolBin = (name) => toolPath(".bin", name);
export const toolVersion = (name) => JSON.parse(readFileSync(toolPath(name, "package.json"), "utf8")).version;
export const importTool = (name) =>
  import(pathToFileURL(toolPath(name, JSON.parse(readFileSync(toolPath(name, "package.json"), "utf8")).main ?? "index.js")).href);
