#!/usr/bin/env node
// Builds the named workspace packages (client, mock, cli, postgres) only when their
// build output is missing or older than what it is built from, so `pnpm demo`,
// `pnpm fdxkit` and `pnpm fdxkit-mock` cost a build once, not on every run.
//
//   node scripts/build-changed.mjs client mock    # prints what it built or skipped
//
// A package is up to date when every file its package.json points into dist/
// (exports, main, types; dist/cli.js behind a bin) exists, and the oldest of
// them is newer than the newest input: its src/, package.json, tsup and
// TypeScript configs, the root tsconfig.base.json, and the build output of the
// workspace packages it depends on. Checking the oldest output means a build
// that failed half-way is rebuilt. `pnpm build` still rebuilds everything.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** In dependency order: a package's workspace dependencies come before it. */
export const PACKAGES = ["client", "mock", "cli", "postgres"];

function readPackage(name) {
  return JSON.parse(readFileSync(path.join(root, "packages", name, "package.json"), "utf8"));
}

/** Newest modification time (ms) of a file, or of every file under a directory. */
function newest(file) {
  if (!existsSync(file)) return 0;
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let max = 0;
  for (const entry of readdirSync(file)) max = Math.max(max, newest(path.join(file, entry)));
  return max;
}

/** The files under dist/ a package's users (and its bin shim) load. */
export function outputs(name) {
  const pkg = readPackage(name);
  const found = new Set();
  const walk = (value) => {
    if (typeof value === "string") {
      if (value.startsWith("./dist/")) found.add(value.slice(2));
    } else if (value && typeof value === "object") {
      for (const v of Object.values(value)) walk(v);
    }
  };
  walk([pkg.exports, pkg.main, pkg.module, pkg.types, pkg.typesVersions]);
  // The committed bin shims (bin/*.js) import dist/cli.js.
  if (pkg.bin) found.add("dist/cli.js");
  return [...found].map((file) => path.join(root, "packages", name, file));
}

function workspaceDependencies(name) {
  const pkg = readPackage(name);
  // Only what the built code loads: devDependencies (the mock in the CLI's tests) need no build here.
  const deps = { ...pkg.dependencies, ...pkg.peerDependencies };
  return PACKAGES.filter((other) => deps[`@fdxkit/${other}`]?.startsWith("workspace:"));
}

/** Why `name` needs a build, or undefined when its dist is up to date. */
export function staleReason(name) {
  const dir = path.join(root, "packages", name);
  const files = outputs(name);
  if (!existsSync(path.join(dir, "dist"))) return "not built yet";
  const missing = files.find((file) => !existsSync(file));
  if (missing) return `${path.relative(dir, missing)} missing`;
  const built = Math.min(...files.map((file) => statSync(file).mtimeMs));
  const inputs = [
    path.join(dir, "src"),
    path.join(dir, "package.json"),
    path.join(dir, "tsup.config.ts"),
    path.join(dir, "tsconfig.json"),
    path.join(root, "tsconfig.base.json"),
    ...workspaceDependencies(name).flatMap(outputs),
  ];
  const changed = inputs.find((input) => newest(input) > built);
  return changed ? `${path.relative(root, changed)} changed since the last build` : undefined;
}

/**
 * Builds those of `names` (and of the workspace packages they depend on) whose
 * dist is stale; progress goes to stderr, so a CLI's stdout stays its own.
 * With `quiet`, says nothing about packages it skips. Returns false when a
 * build failed.
 */
export function buildChanged(names, { quiet = false } = {}) {
  const wanted = new Set();
  const add = (name) => {
    if (!PACKAGES.includes(name)) throw new Error(`unknown package "${name}" (one of ${PACKAGES.join(", ")})`);
    for (const dep of workspaceDependencies(name)) if (dep !== name && !wanted.has(dep)) add(dep);
    wanted.add(name);
  };
  names.forEach(add);
  const started = Date.now();
  const built = [];
  for (const name of PACKAGES.filter((p) => wanted.has(p))) {
    const reason = staleReason(name);
    if (!reason) {
      if (!quiet) console.error(`build: @fdxkit/${name} up to date, skipped`);
      continue;
    }
    console.error(`build: @fdxkit/${name} (${reason})`);
    // pnpm runs this script and says where it lives; `pnpm` may not be on PATH (npx -y pnpm@10 …).
    const pnpm = process.env.npm_execpath && /pnpm/.test(path.basename(process.env.npm_execpath)) ? [process.execPath, process.env.npm_execpath] : ["pnpm"];
    const result = spawnSync(pnpm[0], [...pnpm.slice(1), "--silent", "--filter", `@fdxkit/${name}`, "run", "build", "--silent"], {
      cwd: root,
      // tsup's log would otherwise go to stdout, which belongs to the command this build is for.
      stdio: ["ignore", process.stderr, process.stderr],
      shell: pnpm.length === 1 && process.platform === "win32",
    });
    if (result.status !== 0) {
      // Run outside pnpm (node scripts/build-changed.mjs) without pnpm on PATH, the spawn itself fails: say so.
      const why =
        result.error?.code === "ENOENT" ? ": pnpm is not on PATH (run it through `npx -y pnpm@10 …`)" : result.error ? `: ${result.error.message}` : "";
      console.error(`build: @fdxkit/${name} failed${why}`);
      return false;
    }
    built.push(name);
  }
  if (built.length) console.error(`build: ${built.length} of ${wanted.size} built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const names = process.argv.slice(2);
  process.exit(buildChanged(names.length ? names : PACKAGES) ? 0 : 1);
}
