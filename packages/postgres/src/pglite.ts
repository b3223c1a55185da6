// Starting the embedded PGlite quickly. Two things make a plain
// `PGlite.create()` slow: a new database runs initdb (seconds), and every
// start-up sets up PostgreSQL's default 128 MB of shared buffers in
// WebAssembly. Here a new database starts from an empty one prepared once per
// machine (a `dumpDataDir` tarball kept in the user's cache directory,
// unpacked by ./pglite-template.ts), and the buffers are sized for a store of
// connections.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import path from "node:path";
import type { PGlite, PGliteOptions } from "@electric-sql/pglite";
import { packTemplate, readTemplate, templateMemoryFS, unpackTemplate } from "./pglite-template.js";
import type { Queryable } from "./sql.js";

/** Options of {@link openPGlite}. */
export interface OpenPGliteOptions {
  /**
   * Where the prepared empty database is kept: a directory, or `false` to
   * run initdb for every new database. Default `$XDG_CACHE_HOME/fdxkit`
   * (`~/.cache/fdxkit`).
   */
  templateDir?: string | false;
  /**
   * More PGlite options (not `dataDir` nor `loadDataDir`, which this function sets; an `fs` of your own
   * turns the template off). Typed loosely on purpose:
   * PGlite's own option types need Emscripten's, which an app that never opens PGlite should not have to install.
   */
  pglite?: Record<string, unknown>;
}

/** The database `openPGlite` opens: what the stores use of it, and `close()`. (It is a PGlite instance.) */
export interface OpenedPGlite extends Queryable {
  /** Closes the database (and flushes what it wrote). */
  close(): Promise<void>;
}

// PostgreSQL's shared memory is zeroed at every start-up, at WebAssembly's
// speed, and its defaults (128 MB of buffers, room for 100 connections) are
// sized for a server. PGlite runs one session; a store of connections fits
// in 512 kB of buffers, and what does not is read again from the files (the
// operating system keeps them). Every megabyte a process touches for the
// first time costs time too: 4 MB of buffers made 8 MB of shared memory,
// 512 kB makes 4 MB. These come before the app's own start parameters, so
// that its own win.
const START_PARAMS = ["-c", "shared_buffers=512kB", "-c", "max_connections=10"];

/**
 * Opens (or creates) a PGlite database in `dataDir`, or in memory when it is
 * undefined. A new database starts from the prepared template (made on first
 * use, which costs one initdb); an existing one is opened as it is.
 */
export async function openPGlite(dataDir?: string, options: OpenPGliteOptions = {}): Promise<OpenedPGlite> {
  const given = options.pglite as Omit<PGliteOptions, "dataDir" | "loadDataDir"> | undefined;
  const isNew = dataDir === undefined || !existsSync(path.join(dataDir, "PG_VERSION"));
  const cache = !isNew || options.templateDir === false || given?.fs !== undefined ? undefined : templateFile(options.templateDir);
  // Started together rather than one after the other: a start-up is mostly
  // waiting for files to be read and the WebAssembly to compile.
  const loading = import("@electric-sql/pglite");
  const assets = pgliteAssets(given);
  const templateRead = cache?.then(async (file) => ({ file, bytes: await readFile(file).catch(() => undefined) }));
  // Whatever fails here is reported by the await that needs it; none is left unhandled meanwhile.
  for (const pending of [assets, templateRead]) pending?.catch(() => undefined);

  const { PGlite, MemoryFS } = await loading;
  const base: PGliteOptions = {
    ...given,
    ...(await assets),
    startParams: withStartParams(given?.startParams ?? PGlite.defaultStartParams),
  };
  const withDir = (extra: PGliteOptions): PGliteOptions => (dataDir === undefined ? { ...base, ...extra } : { ...base, ...extra, dataDir });
  if (templateRead === undefined) return PGlite.create(withDir({}));

  const { file, bytes: template } = await templateRead;
  if (template) {
    try {
      const entries = readTemplate(template);
      if (dataDir === undefined) return await PGlite.create({ ...base, fs: templateMemoryFS(MemoryFS, PGlite.paths.PGDATA, entries) });
      unpackTemplate(entries, dataDir);
      return await PGlite.create(withDir({}));
    } catch {
      // A template from another PGlite (an upgrade in place) or a damaged file: made again below.
      await unlink(file).catch(() => undefined);
      if (dataDir !== undefined) await clearPartialLoad(dataDir);
    }
  }
  const db = await PGlite.create(withDir({}));
  try {
    await saveTemplate(db, file);
  } catch {
    // Without a cache the next new database runs initdb again: slower, not wrong.
  }
  return db;
}

/** `params` with openPGlite's settings after the mode flag PostgreSQL wants first, so a later `-c` of the app's overrides them. */
function withStartParams(params: readonly string[]): string[] {
  const [first, ...rest] = params;
  return first === "--single" ? [first, ...START_PARAMS, ...rest] : [...START_PARAMS, ...params];
}

/** The path of one of the PGlite package's own files. */
function pgliteFile(name: string): string {
  // The CommonJS build has __filename and no import.meta; the ES module build the other way round.
  return createRequire(typeof __filename === "string" ? __filename : import.meta.url).resolve(`@electric-sql/pglite/${name}`);
}

/** PostgreSQL's compiled WebAssembly, shared by every database this process opens (a module is immutable). */
let compiled: Promise<WebAssembly.Module> | undefined;

/** PGlite's WebAssembly, compiled, and its bundle of PostgreSQL's share files, unless the caller gave them. */
async function pgliteAssets(given: PGliteOptions | undefined): Promise<Pick<PGliteOptions, "pgliteWasmModule" | "fsBundle">> {
  const compile = () => {
    compiled ??= readFile(pgliteFile("pglite.wasm"))
      .then((bytes) => WebAssembly.compile(bytes))
      .catch((error: unknown) => {
        // A failed compile is not kept: the next database tries again.
        compiled = undefined;
        throw error;
      });
    return compiled;
  };
  const [pgliteWasmModule, fsBundle] = await Promise.all([
    given?.pgliteWasmModule ?? compile(),
    given?.fsBundle ?? readFile(pgliteFile("pglite.data")).then((bytes) => new BytesBlob(bytes)),
  ]);
  return { pgliteWasmModule, fsBundle };
}

/**
 * A Blob over bytes already read. PGlite takes its share files as a Blob and
 * reads them back with `arrayBuffer()`: a plain Blob would copy them in and
 * stream them out again, which costs more than reading the file did. The first
 * `arrayBuffer()` hands over the bytes themselves (PGlite keeps views onto
 * them and only reads them), each later one a copy; the other Blob methods
 * go through a plain Blob.
 */
class BytesBlob extends Blob {
  readonly #bytes: Uint8Array<ArrayBuffer>;
  #handedOver = false;

  constructor(bytes: Uint8Array<ArrayBuffer>) {
    super();
    this.#bytes = bytes;
  }

  override get size(): number {
    return this.#bytes.byteLength;
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.#bytes;
    const whole = !this.#handedOver && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    this.#handedOver = true;
    return Promise.resolve(whole ? bytes.buffer : bytes.slice().buffer);
  }

  override slice(start?: number, end?: number, contentType?: string): Blob {
    return new Blob([this.#bytes]).slice(start, end, contentType);
  }

  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return new Blob([this.#bytes]).stream();
  }

  override text(): Promise<string> {
    return new Blob([this.#bytes]).text();
  }

  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return new Blob([this.#bytes]).bytes();
  }
}

// Made right after initdb, before anything is written, so it is an empty
// database; uncompressed, as unpacking is then only copying. initdb's WAL is
// checkpointed and left behind first: the segment the template keeps then
// holds only the checkpoint, and packTemplate keeps its zeros as a size.
async function saveTemplate(db: PGlite, file: string): Promise<void> {
  await db.exec("SET wal_recycle = off");
  await db.query("SELECT pg_switch_wal()");
  await db.exec("CHECKPOINT");
  await db.exec("RESET wal_recycle");
  const tarball = await db.dumpDataDir("none");
  const bytes = packTemplate(new Uint8Array(await tarball.arrayBuffer()));
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  // Written whole under another name first: a reader never sees half a template.
  const temp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(temp, bytes, { mode: 0o600 });
  await rename(temp, file).catch(async (error: unknown) => {
    await unlink(temp).catch(() => undefined);
    throw error;
  });
}

// A failed unpack may have left files behind; initdb wants the directory empty.
async function clearPartialLoad(dataDir: string): Promise<void> {
  const { readdir, rm } = await import("node:fs/promises");
  for (const name of await readdir(dataDir).catch(() => [])) await rm(path.join(dataDir, name), { recursive: true, force: true });
}

/**
 * The template's file: named after the PGlite build (the size and time of
 * its WebAssembly files), so that an upgrade of PGlite never unpacks a data
 * directory another PostgreSQL build made.
 */
async function templateFile(dir: string | undefined): Promise<string> {
  const parts = await Promise.all(
    ["pglite.wasm", "initdb.wasm", "pglite.data"].map(async (asset) => {
      const info = await stat(pgliteFile(asset));
      return `${info.size.toString(36)}-${Math.trunc(info.mtimeMs).toString(36)}`;
    }),
  );
  return path.join(dir ?? defaultCacheDir(), `pglite-template-${parts.join("-")}.tar`);
}

function defaultCacheDir(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(process.env.HOME || homedir(), ".cache"), "fdxkit");
}
