// Some regressions only show after a garbage collection, which needs
// `--expose-gc`: those scenarios run as a module in a child Node process, on
// the build (the test command builds before testing).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist");

/** True once the package is built. */
export const built = existsSync(path.join(dist, "index.js"));

/** A built entry's absolute path as a JavaScript string literal, for an `import` in a scenario. */
export const distImport = (file: string): string => JSON.stringify(path.join(dist, file));

/** Writes the module `source(dir)` into a fresh temp dir and runs it with `--expose-gc`. */
export function runWithGc(source: (dir: string) => string): { dir: string; stdout: string; stderr: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "fdxkit-gc-"));
  const script = path.join(dir, "scenario.mjs");
  writeFileSync(script, source(dir));
  const run = spawnSync(process.execPath, ["--expose-gc", script], { encoding: "utf8", timeout: 20_000 });
  return { dir, stdout: run.stdout, stderr: run.stderr };
}
