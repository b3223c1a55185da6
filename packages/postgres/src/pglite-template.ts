// The prepared empty database that `openPGlite` starts new databases from,
// kept as the tarball PGlite's `dumpDataDir` writes. It is read here rather
// than handed to PGlite's `loadDataDir`, which copies every file twice on
// its way into the WebAssembly file system and, for a directory, writes each
// one through it: most of a start-up went there. Instead, a new directory is
// written with Node's own file calls, and an in-memory database's files are
// the tarball's own bytes, handed over without a copy.
//
// Reading the template is itself a good part of a start, so it keeps no long
// runs of zeros: a file's zero tail (a fresh WAL segment is 16 MB of them) is
// cut when the template is packed, and its size kept in a first entry,
// SIZES, that puts the zeros back when it is read.
import { mkdirSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * One entry of the template: a directory, or a file: its bytes (a view into
 * the tarball) and its size, which is more than `data` holds when its zero
 * tail was cut.
 */
export type TemplateEntry = { kind: "dir"; path: string } | { kind: "file"; path: string; data: Uint8Array; size: number };

const BLOCK = 512;
/** The entry that holds the sizes of the files whose zero tails were cut: { path: size }. */
const SIZES = ".fdxkit-sizes.json";
/** A zero tail shorter than this is kept: cutting it would save less than it costs to put back. */
const MIN_CUT = 64 * 1024;

/**
 * The entries of a tar archive (the ustar format `dumpDataDir` writes), paths
 * relative to the data directory. Throws on anything that is not a whole
 * archive of a data directory: a damaged template is then made again.
 */
export function readTemplate(tar: Uint8Array): TemplateEntry[] {
  const entries: TemplateEntry[] = [];
  let sizes: Record<string, unknown> = {};
  let offset = 0;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    if (!validChecksum(header)) throw new Error(`template: bad tar header at byte ${offset}`);
    const name = joinName(text(header, 345, 155), text(header, 0, 100));
    const size = octalField(header, 124, 12);
    const type = String.fromCharCode(header[156]!);
    const start = offset + BLOCK;
    if (start + size > tar.length) throw new Error("template: the archive is cut short");
    const relative = safeRelative(name);
    if (type === "5") {
      if (relative !== "") entries.push({ kind: "dir", path: relative });
    } else if (type === "0" || type === "\0") {
      const data = tar.subarray(start, start + size);
      if (relative === SIZES) sizes = parseSizes(data);
      else entries.push({ kind: "file", path: relative, data, size });
    } else {
      throw new Error(`template: unexpected tar entry type ${JSON.stringify(type)} for ${relative}`);
    }
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  if (!entries.some((entry) => entry.kind === "file" && entry.path === "PG_VERSION")) throw new Error("template: not a PostgreSQL data directory");
  for (const entry of entries) {
    if (entry.kind !== "file" || !Object.hasOwn(sizes, entry.path)) continue;
    const size = sizes[entry.path];
    if (!(typeof size === "number" && Number.isSafeInteger(size) && size >= entry.data.length)) throw new Error(`template: bad size for ${entry.path}`);
    entry.size = size;
  }
  return entries;
}

function parseSizes(bytes: Uint8Array): Record<string, unknown> {
  let sizes: unknown;
  try {
    sizes = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    throw new Error(`template: ${SIZES} is not JSON`);
  }
  if (sizes === null || typeof sizes !== "object" || Array.isArray(sizes)) throw new Error(`template: ${SIZES} is not an object`);
  return sizes as Record<string, unknown>;
}

/**
 * The template to keep, from the data directory's tarball as PGlite's
 * `dumpDataDir` writes it: the same entries, each file without a long zero
 * tail, and SIZES first.
 */
export function packTemplate(tar: Uint8Array): Uint8Array {
  const sizes: Record<string, number> = {};
  const blocks: Uint8Array[] = [];
  for (const entry of readTemplate(tar)) {
    if (entry.kind === "dir") {
      blocks.push(tarHeader(`${entry.path}/`, 0, "5"));
      continue;
    }
    let end = entry.data.length;
    while (end > 0 && entry.data[end - 1] === 0) end--;
    const data = entry.size - end >= MIN_CUT ? entry.data.subarray(0, end) : entry.data;
    if (data.length < entry.size) sizes[entry.path] = entry.size;
    blocks.push(tarHeader(entry.path, data.length, "0"), data, padding(data.length));
  }
  const index = Buffer.from(JSON.stringify(sizes));
  return Buffer.concat([tarHeader(SIZES, index.length, "0"), index, padding(index.length), ...blocks, new Uint8Array(2 * BLOCK)]);
}

/** A ustar header; names here are a data directory's, well under the 100 bytes of its name field. */
function tarHeader(name: string, size: number, type: "0" | "5"): Uint8Array {
  const header = Buffer.alloc(BLOCK);
  if (Buffer.byteLength(name) > 100) throw new Error(`template: the name ${JSON.stringify(name)} is too long for a tar header`);
  header.write(name, 0);
  const field = (start: number, length: number, value: string) => header.write(value.padStart(length - 1, "0"), start);
  field(100, 8, type === "5" ? "700" : "600");
  field(108, 8, "0");
  field(116, 8, "0");
  field(124, 12, size.toString(8));
  field(136, 12, "0");
  header.write(type, 156);
  header.write("ustar\u000000", 257);
  header.write(`${checksum(header).toString(8).padStart(6, "0")}\u0000 `, 148);
  return header;
}

/** The zeros that fill a tar entry's data of `length` bytes up to whole blocks. */
function padding(length: number): Uint8Array {
  return new Uint8Array((BLOCK - (length % BLOCK)) % BLOCK);
}

/** A file's whole bytes: its data, or its data and the zero tail that was cut. */
function wholeData(entry: Extract<TemplateEntry, { kind: "file" }>): Uint8Array {
  if (entry.data.length === entry.size) return entry.data;
  const whole = new Uint8Array(entry.size);
  whole.set(entry.data);
  return whole;
}

/**
 * Writes the template into `dataDir` (files 0600, directories 0700), with
 * PG_VERSION last: a directory without it is not a database yet, so one
 * interrupted half-way is unpacked again by the next open.
 */
export function unpackTemplate(entries: readonly TemplateEntry[], dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const last = entries.filter((entry) => entry.path === "PG_VERSION");
  for (const entry of [...entries.filter((e) => e.path !== "PG_VERSION"), ...last]) {
    const target = path.join(dataDir, entry.path);
    if (entry.kind === "dir") mkdirSync(target, { recursive: true, mode: 0o700 });
    else {
      mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      writeFileSync(target, entry.data, { mode: 0o600 });
      // The zero tail as a hole in the file, where the file system allows one.
      if (entry.size > entry.data.length) truncateSync(target, entry.size);
    }
  }
}

/** What is used here of the Emscripten file system behind PGlite's `MemoryFS`. */
interface EmscriptenFS {
  mkdirTree(path: string, mode?: number): void;
  writeFile(path: string, data: Uint8Array, options: { canOwn: boolean }): void;
}

/**
 * An in-memory file system that starts out holding the template. PGlite
 * calls `initialSyncFs` to fill a file system from its storage before it
 * looks for a database; here the storage is the template, and each file's
 * bytes become the in-memory file as they are (they belong to this database
 * alone: the tarball was read for it).
 */
export function templateMemoryFS<T extends { initialSyncFs(): Promise<void> }>(MemoryFS: new () => T, pgdata: string, entries: readonly TemplateEntry[]): T {
  return new (class extends (MemoryFS as new () => { initialSyncFs(): Promise<void> }) {
    override async initialSyncFs(): Promise<void> {
      const FS = (this as unknown as { pg: { Module: { FS: EmscriptenFS } } }).pg.Module.FS;
      FS.mkdirTree(pgdata);
      const made = new Set<string>();
      for (const entry of entries) {
        const target = `${pgdata}/${entry.path}`;
        if (entry.kind === "dir") {
          FS.mkdirTree(target, 0o700);
          made.add(entry.path);
          continue;
        }
        const parent = path.posix.dirname(entry.path);
        if (parent !== "." && !made.has(parent)) {
          FS.mkdirTree(`${pgdata}/${parent}`, 0o700);
          made.add(parent);
        }
        FS.writeFile(target, wholeData(entry), { canOwn: true });
      }
    }
  })() as T;
}

function text(block: Uint8Array, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return Buffer.from(end === -1 ? field : field.subarray(0, end)).toString("utf8");
}

function octalField(block: Uint8Array, start: number, length: number): number {
  const value = text(block, start, length).trim();
  if (!/^[0-7]+$/.test(value)) throw new Error("template: bad size in a tar header");
  return Number.parseInt(value, 8);
}

// The checksum counts its own field as eight spaces.
function checksum(header: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
  return sum;
}

function validChecksum(header: Uint8Array): boolean {
  const stored = text(header, 148, 8).trim();
  return /^[0-7]+$/.test(stored) && Number.parseInt(stored, 8) === checksum(header);
}

function joinName(prefix: string, name: string): string {
  return prefix ? `${prefix}/${name}` : name;
}

// Entries are named from the data directory's root ("/base/1/1255"); nothing
// may climb out of it.
function safeRelative(name: string): string {
  const parts = name.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) throw new Error(`template: entry ${JSON.stringify(name)} leaves the data directory`);
  return parts.join("/");
}
