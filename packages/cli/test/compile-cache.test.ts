// The CLI asks Node (22.1 and later) to keep V8's compiled code of the modules
// a run loads, so later runs skip compiling them. Checked on Node 24 (the
// project's runtime matrix installs it from the npm registry; the first use here
// may too): the suite itself runs on Node 20, which has no compile cache.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureNode } from "../../../scripts/node-major.mjs";
import { assertBuilt, CLI } from "./helpers.js";

describe("the compile cache", () => {
  let dir: string;
  let node: string;

  beforeAll(() => {
    assertBuilt();
    dir = mkdtempSync(path.join(tmpdir(), "fdxkit-cli-compile-cache-"));
    node = ensureNode("24").bin;
  }, 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const version = (env: Record<string, string> = {}) => {
    const env0: NodeJS.ProcessEnv = { ...process.env, TMPDIR: dir, ...env };
    delete env0.NODE_COMPILE_CACHE;
    delete env0.NODE_DISABLE_COMPILE_CACHE;
    return spawnSync(node, [CLI, "--version"], { env: env0, encoding: "utf8" });
  };

  it("a run on Node 24 leaves the compiled code in the temporary directory, and the next run takes the CLI's from there", () => {
    const first = version();
    expect(first.status).toBe(0);
    expect(first.stdout).toBe("0.0.0\n");
    const kept = readdirSync(path.join(dir, "node-compile-cache"));
    expect(kept.length).toBeGreaterThan(0);

    const second = version({ NODE_DEBUG_NATIVE: "COMPILE_CACHE" });
    expect(second.status).toBe(0);
    expect(second.stdout).toBe("0.0.0\n");
    expect(second.stderr).toMatch(/V8 code cache for ESM file:\/\/\S+\/cli\/dist\/program-\w+\.js was accepted/);
  });
});
