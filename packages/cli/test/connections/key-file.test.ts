// The key file: made once, atomically, 0600; two processes that start at once share one key.
import { spawn } from "node:child_process";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultKeyFile, loadOrCreateKey } from "../../src/connections/key-file.js";

const root = mkdtempSync(path.join(tmpdir(), "fdxkit-key-"));
let script: string | undefined;
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  if (script) rmSync(script, { force: true });
});

describe("defaultKeyFile", () => {
  it("is $XDG_CONFIG_HOME/fdxkit/key, else ~/.config/fdxkit/key (a relative XDG_CONFIG_HOME is ignored)", () => {
    expect(defaultKeyFile({ XDG_CONFIG_HOME: "/cfg", HOME: "/home/u" })).toBe("/cfg/fdxkit/key");
    expect(defaultKeyFile({ HOME: "/home/u" })).toBe("/home/u/.config/fdxkit/key");
    expect(defaultKeyFile({ XDG_CONFIG_HOME: "rel", HOME: "/home/u" })).toBe("/home/u/.config/fdxkit/key");
  });
});

describe("loadOrCreateKey", () => {
  it("makes 32 random bytes of base64, 0600 in a 0700 directory, whatever the umask; then reads the same key", async () => {
    const file = path.join(root, "one", "fdxkit", "key");
    const previous = process.umask(0);
    let made: Awaited<ReturnType<typeof loadOrCreateKey>>;
    try {
      made = await loadOrCreateKey(file);
    } finally {
      process.umask(previous);
    }
    expect(made.created).toBe(true);
    expect(Buffer.from(made.value, "base64")).toHaveLength(32);
    expect(readFileSync(file, "utf8")).toBe(`${made.value}\n`);
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
    expect(lstatSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(await loadOrCreateKey(file)).toEqual({ path: file, value: made.value, created: false });
  });

  it("twenty calls at once end with one key, made by one of them, and no temporary file left", async () => {
    const file = path.join(root, "many", "key");
    const results = await Promise.all(Array.from({ length: 20 }, () => loadOrCreateKey(file)));
    expect(new Set(results.map((r) => r.value)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(readFileSync(file, "utf8").trim()).toBe(results[0]!.value);
    expect(lstatSync(path.dirname(file)).isDirectory()).toBe(true);
    expect(readdirSync(path.dirname(file))).toEqual(["key"]);
  });

  it("an empty or unreadable key file is a usage error, never replaced by a new key", async () => {
    const empty = path.join(root, "empty-key");
    writeFileSync(empty, "\n");
    await expect(loadOrCreateKey(empty)).rejects.toThrow(`the encryption key file ${empty} is empty: restore it from a backup, or set FDXKIT_ENCRYPTION_KEY`);
    expect(readFileSync(empty, "utf8")).toBe("\n");
    const dirInstead = path.join(root, "a-dir");
    mkdirSync(dirInstead);
    await expect(loadOrCreateKey(dirInstead)).rejects.toThrow(`cannot read the encryption key file ${dirInstead} (EISDIR)`);
  });
});

describe("two processes at once", () => {
  beforeAll(async () => {
    // The module as the CLI bundles it, run by plain node in other processes;
    // beside the package's node_modules, where its imports resolve.
    script = fileURLToPath(new URL(`../../node_modules/.fdxkit-test/key-file-${process.pid}.mjs`, import.meta.url));
    await build({
      entryPoints: [fileURLToPath(new URL("../../src/connections/key-file.ts", import.meta.url))],
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      outfile: script,
      logLevel: "silent",
    });
  }, 60_000);

  /** Starts a process that waits (spinning, to start within microseconds of the other) until `at`, then loads or makes the key and prints what it got. */
  function racer(file: string, at: number) {
    const code = `
      const { loadOrCreateKey } = await import(${JSON.stringify(script!)});
      while (Date.now() < ${at});
      process.stdout.write(JSON.stringify(await loadOrCreateKey(${JSON.stringify(file)})));
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    return new Promise<{ value: string; created: boolean }>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (status) => (status === 0 ? resolve(JSON.parse(out)) : reject(new Error(`racer exited ${status}`))));
    });
  }

  it("share one key: one made it, the other read it", async () => {
    for (let round = 0; round < 5; round++) {
      const dir = path.join(root, `race-${round}`);
      mkdirSync(dir);
      chmodSync(dir, 0o700);
      const file = path.join(dir, "key");
      // Time enough for both to load the module first, even on a busy machine.
      const at = Date.now() + 3000;
      const results = await Promise.all([racer(file, at), racer(file, at)]);
      expect(new Set(results.map((r) => r.value)).size).toBe(1);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(readFileSync(file, "utf8").trim()).toBe(results[0]!.value);
    }
  }, 180_000);
});
