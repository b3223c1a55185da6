// The key that seals stored tokens when FDXKIT_ENCRYPTION_KEY is not set: 32
// random bytes in `$XDG_CONFIG_HOME/fdxkit/key`, made by the first command
// that needs it. It is kept apart from the data directory, so a copy of the
// store alone holds no usable token.
import { randomBytes } from "node:crypto";
import { link, open, readFile, unlink } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { UsageError } from "../errors.js";
import { FILE_MODE, ownDirectory } from "./private-files.js";

type Env = Record<string, string | undefined>;

/** `$XDG_CONFIG_HOME/fdxkit/key`, else `~/.config/fdxkit/key` (the XDG base directory default). */
export function defaultKeyFile(env: Env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || homedir(), ".config");
  return path.join(base, "fdxkit", "key");
}

/** The key file's content, in the form FDXKIT_ENCRYPTION_KEY takes, and whether this call made it. */
export interface KeyFile {
  path: string;
  value: string;
  created: boolean;
}

/**
 * Reads the key file, or makes it. Making it is atomic: the key is written
 * whole to a temporary file (0600) and then hard-linked to its name, which
 * fails when the name exists. So two processes that start at once end up
 * with one key: the one that loses the race reads the winner's.
 */
export async function loadOrCreateKey(file: string): Promise<KeyFile> {
  const existing = await readKey(file);
  if (existing !== undefined) return { path: file, value: existing, created: false };
  await ownDirectory(path.dirname(file));
  const value = randomBytes(32).toString("base64");
  const temp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const handle = await open(temp, "wx", FILE_MODE);
  try {
    await handle.writeFile(`${value}\n`);
    // On disk before the name points at it: a crash must not leave an empty key behind.
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, file);
    return { path: file, value, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const winner = await readKey(file);
    if (winner === undefined) throw new UsageError(`the encryption key file ${file} appeared and vanished again: run the command again`);
    return { path: file, value: winner, created: false };
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

async function readKey(file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new UsageError(`cannot read the encryption key file ${file} (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  const value = text.trim();
  if (value === "") throw new UsageError(`the encryption key file ${file} is empty: restore it from a backup, or set FDXKIT_ENCRYPTION_KEY`);
  return value;
}
