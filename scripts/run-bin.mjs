#!/usr/bin/env node
// The root scripts `pnpm fdxkit …` and `pnpm fdxkit-mock …`: run a package's
// command from a clone, building it (and what it depends on) first when its
// build output is missing or stale. Nothing is published to npm yet, so this
// is how the commands the READMEs show are run from the repository.
//
//   node scripts/run-bin.mjs fdxkit|fdxkit-mock [args…]
//
// Build messages (only when something is built) go to stderr; stdout is the command's own (`--json` stays
// clean with `pnpm -s`, which also drops pnpm's header). Relative paths such
// as `--out ./statements` are taken from where pnpm was started (INIT_CWD).
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildChanged } from "./build-changed.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bins = {
  fdxkit: { pkg: "cli", file: "packages/cli/bin/fdxkit.js" },
  "fdxkit-mock": { pkg: "mock", file: "packages/mock/bin/fdxkit-mock.js" },
};
const [name, ...args] = process.argv.slice(2);
const bin = bins[name];
if (!bin) {
  console.error(`usage: node scripts/run-bin.mjs ${Object.keys(bins).join("|")} [args…]`);
  process.exit(2);
}
if (!buildChanged([bin.pkg], { quiet: true })) process.exit(1);
if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
// Run in this process, so Ctrl-C and the exit code reach the command itself.
const file = path.join(root, bin.file);
process.argv = [process.argv[0], file, ...args];
await import(pathToFileURL(file).href);
