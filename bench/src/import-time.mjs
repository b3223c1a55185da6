// Cold import time: each module imported once in a fresh `node` process,
// timed inside that process around the `import()` (Node's own start-up is
// left out), several runs interleaved, median.
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { median, ratio, rotate, round } from "./stats.mjs";

const run = promisify(execFile);
const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export const MODULES = [
  { name: "@fdxkit/client", sdk: true },
  { name: "@fdxkit/client/webhooks", sdk: true },
  { name: "@fdxkit/client/node", sdk: true },
  { name: "openapi-fetch", baseline: true },
  { name: "ky" },
  { name: "axios" },
  { name: "@octokit/core" },
];

async function importMs(specifier) {
  const code = `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", code], { cwd: benchDir });
  return Number(stdout);
}

/** @param {{ runs: number }} config */
export async function runImportTime({ runs }) {
  const times = new Map(MODULES.map((m) => [m.name, []]));
  for (let r = 0; r < runs; r++) {
    for (const m of rotate(MODULES, r)) times.get(m.name).push(await importMs(m.name));
  }
  const base = median(times.get(MODULES.find((m) => m.baseline).name));
  return {
    runs,
    modules: MODULES.map((m) => {
      const ms = median(times.get(m.name));
      return { name: m.name, sdk: Boolean(m.sdk), baseline: Boolean(m.baseline), ms: round(ms, 2), vsOpenapiFetch: ratio(ms, base) };
    }),
  };
}
