// A command that opens the embedded store keeps WebAssembly on V8's baseline
// compiler (PGlite's start-up otherwise waits at exit for Node's optimizing
// compiler), in its own process: same output, exit code and signals as any.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startMockServer, type MockServer } from "@fdxkit/mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureNode } from "../../../scripts/node-major.mjs";
import { opensEmbeddedStore } from "../src/wasm-tiering.js";
import { assertBuilt, runCli, startCli } from "./helpers.js";

describe("opensEmbeddedStore: which commands open the embedded store", () => {
  const none = {};
  it.each([
    [["connections", "list"], none],
    [["connect", "--connector", "bank"], none],
    [["--store", "/data/fdxkit", "connections", "refresh", "x"], none],
    [["connections", "list", "--store=./here"], { FDXKIT_STORE: "postgres://db/x" }],
    [["statements", "export", "--connections", "--from", "2024-01-01"], none],
    [["statements", "export", "--provider", "p", "--rate-limit", "5", "--rate-budget", "./budget"], none],
    [["statements", "export", "--provider", "p", "--rate-limit", "5", "--rate-budget=./budget", "--store", "postgres://db/x"], none],
  ])("%j with %j: yes", (argv, env) => {
    expect(opensEmbeddedStore(argv, env)).toBe(true);
  });

  it.each([
    [["statements", "list", "--provider", "p", "--account", "a"], none],
    [["connections", "list", "--store", "postgres://u@db/x"], none],
    [["connections", "list", "--store=POSTGRESQL://db/x"], none],
    [["connections", "list"], { FDXKIT_STORE: " postgres://db/x" }],
    [["statements", "export", "--connections", "--store", "postgres://db/x"], none],
    [["statements", "export", "--provider", "p", "--rate-limit", "5", "--rate-budget", "memory"], none],
    [["statements", "export", "--provider", "p", "--rate-limit", "5", "--rate-budget", "postgres://db/x"], none],
    [["connections", "--help"], none],
    [["connect", "-h"], none],
    [["listen", "--port", "0"], none],
  ])("%j with %j: no", (argv, env) => {
    expect(opensEmbeddedStore(argv, env)).toBe(false);
  });
});

/**
 * A module for `--import` that reports, as its process exits, whether V8 still
 * optimizes hot WebAssembly there: it runs a small loop function hot and waits
 * (up to 3 s) for it to be optimized. Needs `--allow-natives-syntax`.
 */
const reportTiering = `data:text/javascript,${encodeURIComponent(`
process.on("exit", () => {
  // (func (param i32) (result i32) sums n + (n - 1) + … + 1 in a loop)
  const body = [1, 1, 0x7f, 2, 0x40, 3, 0x40, 0x20, 0, 0x45, 0x0d, 1, 0x20, 1, 0x20, 0, 0x6a, 0x21, 1, 0x20, 0, 0x41, 1, 0x6b, 0x21, 0, 0x0c, 0, 0x0b, 0x0b, 0x20, 1, 0x0b];
  const bytes = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 6, 1, 0x60, 1, 0x7f, 1, 0x7f, 3, 2, 1, 0, 7, 8, 1, 4, 0x6c, 0x6f, 0x6f, 0x70, 0, 0, 0x0a, body.length + 2, 1, body.length, ...body]);
  const { loop } = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports;
  const until = Date.now() + 3000;
  let optimized = false;
  while (!optimized && Date.now() < until) {
    loop(100000);
    optimized = %IsTurboFanFunction(loop);
  }
  console.error("wasm tier-up:", optimized ? "on" : "off", "/ baseline code:", %IsLiftoffFunction(loop));
});`)}`;
const TIERING = ["--allow-natives-syntax", "--import", reportTiering];

describe("the command's own process, run as users run it", () => {
  let mock: MockServer;
  let dir: string;

  beforeAll(async () => {
    assertBuilt();
    mock = await startMockServer({ port: 0 });
    dir = mkdtempSync(path.join(tmpdir(), "fdxkit-cli-tiering-"));
  });
  afterAll(async () => {
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const env = (extra: Record<string, string> = {}) => ({
    FDXKIT_ISSUER: mock.idpUrl,
    FDXKIT_CLIENT_ID: mock.clientId,
    FDXKIT_CLIENT_SECRET: mock.clientSecret,
    FDXKIT_STORE: path.join(dir, "store"),
    ...extra,
  });

  // The flags are V8's, set while it runs: checked on this Node and on the newer majors of the runtime matrix.
  let nodes: { node: string; bin: string }[];
  beforeAll(() => {
    const newer = ["22", "24"].map((major) => {
      const { version, bin } = ensureNode(major);
      return { node: version, bin };
    });
    nodes = [{ node: process.version, bin: process.execPath }, ...newer];
  }, 180_000);

  it("connections list on the embedded store runs with WebAssembly kept on the baseline compiler, in one process, and prints what it would print", async () => {
    for (const { node, bin } of nodes) {
      const result = await runCli(["connections", "list"], env(), TIERING, bin);
      expect({ node, code: result.code, stdout: result.stdout }).toEqual({ node, code: 0, stdout: "No connections.\n" });
      // Printed once: no second Node was started for the command.
      expect({ node, tiering: result.stderr.match(/wasm tier-up: .*/g) }).toEqual({ node, tiering: ["wasm tier-up: off / baseline code: true"] });
    }
  }, 180_000);

  it("a command without the embedded store leaves Node's optimizing compiler on", async () => {
    for (const { node, bin } of nodes) {
      const result = await runCli(["maintenance", "get", "x", "--base-url", mock.baseUrl, "--token", "t"], env(), TIERING, bin);
      expect({ node, tiering: result.stderr.match(/wasm tier-up: .*/g) }).toEqual({ node, tiering: ["wasm tier-up: on / baseline code: false"] });
    }
  }, 180_000);

  it("a usage error on the embedded store is exit code 2, with its message once", async () => {
    const result = await runCli(["connections", "revoke", "nobody"], env());
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: no connection "nobody" in the store\n');
  });

  it.each(["SIGTERM", "SIGINT"] as const)("%s sent to fdxkit connect stops it, and fdxkit ends by it", async (signal) => {
    const cli = startCli(["connect", "--connector", mock.seed.providerId], env());
    await cli.waitFor(({ stderr }) => /http:\/\/127\.0\.0\.1:\d+\/auth\?\S+/.test(stderr), "the authorization URL");
    const url = new URL(/(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(cli.stderr())![1]!);
    const callback = url.searchParams.get("redirect_uri")!;
    expect((await fetch(callback)).status).toBe(400);
    cli.child.kill(signal);
    const result = await cli.done;
    expect(result.signal).toBe(signal);
    // Nothing listens for the callback any more.
    await expect(fetch(callback)).rejects.toThrow();
  });
});
