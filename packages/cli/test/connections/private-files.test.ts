// The files of the embedded store and of the key: their user's alone.
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ownDirectory, privateTree } from "../../src/connections/private-files.js";
import { openEntries } from "./files.js";

const root = mkdtempSync(path.join(tmpdir(), "fdxkit-private-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("privateTree", () => {
  it("makes files 0600 and directories 0700 all the way down, and says how many it fixed", async () => {
    const dir = path.join(root, "tree");
    mkdirSync(path.join(dir, "a", "b"), { recursive: true });
    writeFileSync(path.join(dir, "a", "b", "f"), "x", { mode: 0o666 });
    writeFileSync(path.join(dir, "g"), "x", { mode: 0o640 });
    chmodSync(path.join(dir, "a", "b", "f"), 0o666);
    chmodSync(path.join(dir, "a"), 0o755);
    chmodSync(dir, 0o777);
    expect(openEntries(dir)).toHaveLength(4);
    const result = await privateTree(dir);
    expect(result).toEqual({ entries: 5, fixed: 5 });
    expect(openEntries(dir)).toEqual([]);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    expect(lstatSync(path.join(dir, "g")).mode & 0o777).toBe(0o600);
    expect(await privateTree(dir)).toEqual({ entries: 5, fixed: 0 });
  });

  it("leaves a symbolic link's target alone", async () => {
    const dir = path.join(root, "links");
    mkdirSync(dir);
    const outside = path.join(root, "outside.txt");
    writeFileSync(outside, "x");
    chmodSync(outside, 0o644);
    symlinkSync(outside, path.join(dir, "link"));
    await privateTree(dir);
    expect(lstatSync(outside).mode & 0o777).toBe(0o644);
  });
});

describe("ownDirectory", () => {
  it("creates missing directories 0700 whatever the umask", async () => {
    const previous = process.umask(0);
    try {
      const dir = path.join(root, "new", "deeper");
      expect(await ownDirectory(dir)).toEqual({ created: true, openToOthers: false, mode: 0o700 });
      expect(lstatSync(dir).mode & 0o777).toBe(0o700);
      expect(lstatSync(path.dirname(dir)).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(previous);
    }
  });

  it("keeps the mode of a directory that already existed, and says when others can get in", async () => {
    const open = path.join(root, "shared");
    mkdirSync(open);
    chmodSync(open, 0o755);
    expect(await ownDirectory(open)).toEqual({ created: false, openToOthers: true, mode: 0o755 });
    expect(lstatSync(open).mode & 0o777).toBe(0o755);
    const closed = path.join(root, "closed");
    mkdirSync(closed);
    chmodSync(closed, 0o700);
    expect(await ownDirectory(closed)).toEqual({ created: false, openToOthers: false, mode: 0o700 });
  });
});
