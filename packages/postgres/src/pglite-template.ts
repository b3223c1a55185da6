// The prepared empty database that `openPGlite` starts new databases from,
// kept as the tarball PGlite's `dumpDataDir` writes. It is read here rather
// than handed to PGlite's `loadDataDir`, which copies every file twice on
// its way into the WebAssembly file system and, for a directory, writes each
// one through it: most of a start-up went there. Instead, a new directory is
// written with Node's own file calls, and an in-memory database's files are
// the tarball's own bytes, handed over without a copy.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/** One entry of the template: a directory, or a file and its bytes (a view into the tarball). */
export type TemplateEntry = { kind: "dir"; path: string } | { kind: "file"; path: string; data: Uint8Array };

const BLOCK = 512;

/**
 * The entries of a tar archive (the ustar format `dumpDataDir` writes), paths
 * relative to the data directory. Throws on anything that is not a whole
 * archive of a data directory: a damaged template is then made again.
 */
export function readTemplate(tar: Uint8Array): TemplateEntry[] {
  const entries: TemplateEntry[] = [];
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
      entries.push({ kind: "file", path: relative, data: tar.subarray(start, start + size) });
    } else {
      throw new Error(`template: unexpected tar entry type ${JSON.stringify(type)} for ${relative}`);
    }
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  if (!entries.some((entry) => entry.kind === "file" && entry.path === "PG_VERSION")) throw new Error("template: not a PostgreSQL data directory");
  return entries;
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
        FS.writeFile(target, entry.data, { canOwn: true });
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
function validChecksum(header: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
  const stored = text(header, 148, 8).trim();
  return /^[0-7]+$/.test(stored) && Number.parseInt(stored, 8) === sum;
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
