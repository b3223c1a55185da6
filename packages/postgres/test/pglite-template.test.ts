// The template openPGlite starts new databases from: a tarball read without
// PGlite's loadDataDir, and written into a new directory with Node's calls.
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packTemplate, readTemplate, unpackTemplate } from "../src/pglite-template.js";

const root = mkdtempSync(path.join(tmpdir(), "fdxkit-template-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A ustar archive of `files` (path → content), made by the system's tar from a directory. */
function tarOf(name: string, files: Record<string, string | Uint8Array>): Uint8Array {
  const dir = path.join(root, name);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  return new Uint8Array(execFileSync("tar", ["--format=ustar", "-C", dir, "-cf", "-", "."], { maxBuffer: 64 * 1024 * 1024 }));
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

describe("packTemplate", () => {
  // A WAL segment as a checkpoint leaves it: a few bytes, then zeros to its full size.
  const wal = new Uint8Array(1024 * 1024);
  wal.set([1, 2, 3, 0, 5], 0);
  const files = { ...DATA_DIR, "pg_wal/000000010000000000000002": wal, "base/1/2838": new Uint8Array(8192) };

  it("keeps a long zero tail as a size, and reading gives the same files back, byte for byte", () => {
    const tar = tarOf("pack", files);
    const packed = packTemplate(tar);
    expect(packed.length).toBeLessThan(tar.length - 1000 * 1024);
    const entries = readTemplate(packed);
    const segment = entries.find((e) => e.path === "pg_wal/000000010000000000000002");
    expect(segment).toMatchObject({ kind: "file", size: wal.length });
    // Only the bytes before the zero tail are stored; a short zero tail (the 8 KiB page) is kept as it is.
    expect(segment?.kind === "file" && segment.data.length).toBe(5);
    const page = entries.find((e) => e.path === "base/1/2838");
    expect(page?.kind === "file" && [page.size, page.data.length, page.data.every((byte) => byte === 0)]).toEqual([8192, 8192, true]);
    expect(entries.map((e) => e.path).sort()).toEqual(
      readTemplate(tar)
        .map((e) => e.path)
        .sort(),
    );
    const target = path.join(root, "packed", "data");
    unpackTemplate(entries, target);
    for (const [file, content] of Object.entries(files)) {
      // Compared as buffers: a deep equality of a megabyte, byte by byte, takes seconds.
      expect(readFileSync(path.join(target, file)).equals(Buffer.from(content)), file).toBe(true);
    }
  });

  it("a template packed before sizes were kept still reads, each file as stored", () => {
    const segment = readTemplate(tarOf("plain", files)).find((e) => e.path === "pg_wal/000000010000000000000002");
    expect(segment?.kind === "file" && [segment.size, Buffer.from(segment.data).equals(wal)]).toEqual([wal.length, true]);
  });

  it("refuses sizes that are not JSON, or a size below what the file holds", () => {
    const packed = Buffer.from(packTemplate(tarOf("bad-sizes", files)));
    // The sizes entry comes first: its content starts at byte 512.
    const broken = Buffer.from(packed);
    broken.write("!", 512);
    expect(() => readTemplate(new Uint8Array(broken))).toThrow("template: .fdxkit-sizes.json is not JSON");
    const index = JSON.parse(packed.subarray(512, packed.indexOf(0, 512)).toString());
    const short = Buffer.from(packed);
    const smaller = JSON.stringify({ "pg_wal/000000010000000000000002": 4 }).padEnd(JSON.stringify(index).length, " ");
    short.write(smaller, 512);
    expect(() => readTemplate(new Uint8Array(short))).toThrow("template: bad size for pg_wal/000000010000000000000002");
  });
});
