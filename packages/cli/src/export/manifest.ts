import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, readFile, stat, type FileHandle } from "node:fs/promises";
import { join } from "node:path";

/** One line of `DIR/manifest.jsonl`: a statement saved, and how to check its file. */
export interface ManifestEntry {
  accountId: string;
  /** Null for a statement the provider listed without one (then known by its link). */
  statementId: string | null;
  statementDate: string | null;
  /** Relative to the output directory, `/`-separated. */
  file: string;
  bytes: number;
  /** Hex SHA-256 of the file's bytes. */
  sha256: string;
}

export const MANIFEST_FILE = "manifest.jsonl";

function isEntry(value: unknown): value is ManifestEntry {
  if (typeof value !== "object" || value === null) return false;
  const e = value as Record<string, unknown>;
  return (
    typeof e.accountId === "string" &&
    (typeof e.statementId === "string" || e.statementId === null) &&
    (typeof e.statementDate === "string" || e.statementDate === null) &&
    typeof e.file === "string" &&
    Number.isSafeInteger(e.bytes) &&
    typeof e.sha256 === "string" &&
    /^[0-9a-f]{64}$/.test(e.sha256)
  );
}

/**
 * The export's record of what it saved, one JSON object per line, appended
 * as each statement is saved. A rerun reads it to skip what is done. Lines
 * that do not parse (the last one, torn by a killed run) are ignored; for a
 * file recorded twice the last line wins. Entries are looked up by `file`,
 * which the export derives from provider, account and statement identity.
 *
 * Each line goes to the file in one `write` on a descriptor opened for
 * appending, so processes sharing the directory (shards on one machine)
 * never interleave within a line on a local file system.
 */
export class Manifest {
  readonly path: string;
  readonly #entries: Map<string, ManifestEntry>;
  readonly #handle: FileHandle;
  readonly #redact: (text: string) => string;
  /** Lines that did not parse when loading. */
  readonly skippedLines: number;
  #writes: Promise<void> = Promise.resolve();

  private constructor(path: string, entries: Map<string, ManifestEntry>, handle: FileHandle, skippedLines: number, redact: (text: string) => string) {
    this.path = path;
    this.#redact = redact;
    this.#entries = entries;
    this.#handle = handle;
    this.skippedLines = skippedLines;
  }

  /**
   * Loads `DIR/manifest.jsonl` (created when missing) and opens it for
   * appending. `redact` masks secrets in each line written: a statement id is
   * the server's text, and a server may echo the token into it.
   */
  static async open(dir: string, redact: (text: string) => string = (text) => text): Promise<Manifest> {
    const path = join(dir, MANIFEST_FILE);
    let text = "";
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    const entries = new Map<string, ManifestEntry>();
    let skipped = 0;
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        skipped++;
        continue;
      }
      if (isEntry(value)) entries.set(value.file, value);
      else skipped++;
    }
    const handle = await open(path, "a");
    const manifest = new Manifest(path, entries, handle, skipped, redact);
    // A torn last line must not swallow the next entry.
    if (text !== "" && !text.endsWith("\n")) await handle.write("\n");
    return manifest;
  }

  /** The entry recorded for `file` (relative to the output directory). */
  get(file: string): ManifestEntry | undefined {
    return this.#entries.get(file);
  }

  /** Records a saved statement (appends its line). */
  append(entry: ManifestEntry): Promise<void> {
    this.#entries.set(entry.file, entry);
    const line = `${this.#redact(JSON.stringify(entry))}\n`;
    const write = this.#writes.then(async () => {
      await this.#handle.write(line);
    });
    this.#writes = write.catch(() => undefined);
    return write;
  }

  async close(): Promise<void> {
    await this.#writes;
    await this.#handle.close();
  }
}

/** Size of a regular file, or undefined when there is none. */
export async function fileSize(path: string): Promise<number | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? info.size : undefined;
  } catch {
    return undefined;
  }
}

/** Hex SHA-256 and size of a file, read as a stream. */
export async function hashFile(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).byteLength;
  }
  return { sha256: hash.digest("hex"), bytes };
}
