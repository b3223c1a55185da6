// The template openPGlite starts new databases from: a tarball read without
// PGlite's loadDataDir, and written into a new directory with Node's calls.
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTemplate, unpackTemplate } from "../src/pglite-template.js";

const root = mkdtempSync(path.join(tmpdir(), "fdxkit-template-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A ustar archive of `files` (path → content), made by the system's tar from a directory. */
function tarOf(name: string, files: Record<string, string>): Uint8Array {
  const dir = path.join(root, name);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  return new Uint8Array(execFileSync("tar", ["--format=ustar", "-C", dir, "-cf", "-", "."]));
}

const DATA_DIR = { PG_VERSION: "18\n", "base/1/1255": "x".repeat(1500), "global/pg_control": "control", "pg_wal/archive_status/.keep": "" };

describe("readTemplate", () => {
  it("lists a data directory's directories and files, with their bytes, relative to its root", () => {
    const entries = readTemplate(tarOf("ok", DATA_DIR));
    const files = Object.fromEntries(entries.flatMap((e) => (e.kind === "file" ? [[e.path, Buffer.from(e.data).toString()]] : [])));
    expect(files).toEqual(DATA_DIR);
    expect(entries.filter((e) => e.kind === "dir").map((e) => e.path)).toEqual(
      expect.arrayContaining(["base", "base/1", "global", "pg_wal", "pg_wal/archive_status"]),
    );
  });

  it("refuses what is not a whole archive of a data directory, saying why", () => {
    const good = tarOf("cut", DATA_DIR);
    expect(() => readTemplate(new TextEncoder().encode("not a tarball"))).toThrow("template: not a PostgreSQL data directory");
    expect(() => readTemplate(tarOf("no-version", { "base/1/1255": "x" }))).toThrow("template: not a PostgreSQL data directory");
    const damaged = good.slice();
    damaged[10] = damaged[10]! ^ 0xff;
    expect(() => readTemplate(damaged)).toThrow("template: bad tar header at byte 0");
    // The archive ends inside base/1/1255 (1500 bytes), whose header is still whole.
    const headerOf1255 = Buffer.from(good).indexOf("base/1/1255");
    expect(() => readTemplate(good.subarray(0, headerOf1255 + 512 + 100))).toThrow("template: the archive is cut short");
  });

  it("refuses an entry that leaves the data directory", () => {
    const tar = tarOf("escape", { PG_VERSION: "18\n", "a/b": "x" });
    const at = Buffer.from(tar).indexOf("./a/b");
    // Renamed to "../a/b" (same length plus one byte of the zero padding), its checksum made right again.
    const bad = Buffer.from(tar);
    bad.write("../a/b", at);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : bad[at + i]!;
    bad.write(`${sum.toString(8).padStart(6, "0")}\0 `, at + 148);
    expect(() => readTemplate(new Uint8Array(bad))).toThrow('template: entry "../a/b" leaves the data directory');
  });
});

describe("unpackTemplate", () => {
  it("writes every file with its bytes, files 0600 and directories 0700 whatever the umask", () => {
    const previous = process.umask(0);
    try {
      const target = path.join(root, "unpacked", "data");
      unpackTemplate(readTemplate(tarOf("unpack", DATA_DIR)), target);
      for (const [file, content] of Object.entries(DATA_DIR)) {
        expect(readFileSync(path.join(target, file), "utf8")).toBe(content);
        expect(lstatSync(path.join(target, file)).mode & 0o777).toBe(0o600);
      }
      for (const dir of ["", "base", "base/1", "pg_wal/archive_status"]) expect(lstatSync(path.join(target, dir)).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(previous);
    }
  });
});
