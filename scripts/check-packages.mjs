#!/usr/bin/env node
// Package gates for every published package: publint clean,
// @arethetypeswrong/cli green (types resolve for ESM and CJS users), and no
// file in the tarball naming the directory it was built in (source maps did).
//
// Each package is packed once, with npm, into a scratch directory, and both
// tools read that tarball: what they judge is exactly what would be
// published, and a failure of npm itself prints npm's own words instead of
// being swallowed (attw --pack runs `npm pack` with its output ignored).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const packages = ["packages/client", "packages/mock", "packages/cli", "packages/postgres"];
const scratch = mkdtempSync(path.join(os.tmpdir(), "fdxkit-packages-"));
let failed = 0;

function pack(pkgDir) {
  const npm = spawnSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", scratch], {
    cwd: pkgDir,
    encoding: "utf8",
  });
  if (npm.status !== 0) {
    throw new Error(`npm pack failed (exit ${npm.status ?? npm.signal}):\n${npm.stderr}\n${npm.stdout}`);
  }
  // npm prints the JSON array last; warnings go to stderr.
  const [{ filename }] = JSON.parse(npm.stdout.slice(npm.stdout.indexOf("[")));
  return path.join(scratch, path.basename(filename));
}

try {
  for (const dir of packages) {
    const pkgDir = path.join(root, dir);
    const pkg = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8"));
    let tarball;
    try {
      tarball = pack(pkgDir);
    } catch (error) {
      console.log(`✘ ${pkg.name}: ${error.message}`);
      failed += 2;
      continue;
    }

    try {
      const bytes = readFileSync(tarball);
      // No pkgDir: publint finds the package root inside the tarball.
      const { messages } = await publint({
        level: "suggestion",
        strict: true,
        pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
      });
      for (const m of messages) console.log(`  publint ${m.type}: ${formatMessage(m, pkg)}`);
      console.log(`${messages.length === 0 ? "✔" : "✘"} publint ${pkg.name}`);
      failed += Number(messages.length > 0);
    } catch (error) {
      console.log(`✘ publint ${pkg.name} could not run:`, error);
      failed++;
    }

    // Anything published that names this checkout's path (a source map's sources, say) names the build machine.
    const files = spawnSync("tar", ["-xzOf", tarball], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    const clean = files.status === 0 && !files.stdout.includes(root);
    console.log(`${clean ? "✔" : "✘"} no build path in ${pkg.name}${files.status === 0 ? "" : ` (tar exit ${files.status})`}`);
    failed += Number(!clean);

    const attw = spawnSync(path.join(root, "node_modules/.bin/attw"), [tarball, "--format", "table-flipped"], {
      cwd: root,
      encoding: "utf8",
    });
    const attwOk = attw.status === 0;
    if (!attwOk) console.log(`attw exit ${attw.status ?? attw.signal}\n${attw.stdout}\n${attw.stderr}`);
    console.log(`${attwOk ? "✔" : "✘"} attw ${pkg.name}`);
    failed += Number(!attwOk);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
