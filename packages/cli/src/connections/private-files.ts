// Files that hold tokens belong to their user alone. PGlite creates its files
// 0666 whatever the umask (it sets the mode itself), so modes are fixed after
// the fact: the directory is walked and every file made 0600, every directory
// 0700. The walk runs once the database is closed, so it covers every file the
// command wrote (WAL segments, relation files); meanwhile the data directory
// itself is 0700 and nobody else can reach into it. The walk uses Node's
// synchronous calls: a data directory holds about a thousand entries, and a
// promise and a thread-pool round trip for each made the walks a noticeable
// part of every command.
import { chmodSync, lstatSync, readdirSync, type Stats } from "node:fs";
import { chmod, lstat, mkdir } from "node:fs/promises";
import path from "node:path";

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** What a walk changed, for tests and the benchmark: entries seen and modes fixed. */
export interface TreeModes {
  entries: number;
  fixed: number;
}

/**
 * Makes every file under `root` 0600 and every directory 0700 (`root`
 * included). Symbolic links are neither followed nor changed: chmod on one
 * would change its target, which may lie outside the tree.
 */
export async function privateTree(root: string): Promise<TreeModes> {
  const result: TreeModes = { entries: 0, fixed: 0 };
  const visit = (target: string): void => {
    let info: Stats;
    try {
      info = lstatSync(target);
    } catch (error) {
      // Gone meanwhile (PGlite removes files it no longer needs): nothing to protect.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    if (info.isSymbolicLink()) return;
    result.entries++;
    const wanted = info.isDirectory() ? DIR_MODE : FILE_MODE;
    if ((info.mode & 0o7777) !== wanted) {
      chmodSync(target, wanted);
      result.fixed++;
    }
    if (info.isDirectory()) {
      let names: string[];
      try {
        names = readdirSync(target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
        throw error;
      }
      for (const name of names) visit(path.join(target, name));
    }
  };
  visit(root);
  return result;
}

/**
 * A directory of the CLI's own (created 0700 when missing, whatever the
 * umask). One that already existed keeps its mode — it may be shared on
 * purpose — and the answer says whether group or others can get into it, so
 * the caller can warn.
 */
export async function ownDirectory(dir: string): Promise<{ created: boolean; openToOthers: boolean; mode: number }> {
  const made = await mkdir(dir, { recursive: true, mode: DIR_MODE });
  if (made !== undefined) {
    // mkdir's mode passes through the umask; the intended one is set outright.
    // Every directory it had to create on the way is made private too.
    for (let d = dir; d.length >= made.length; d = path.dirname(d)) {
      await chmod(d, DIR_MODE);
      if (d === made) break;
    }
    return { created: true, openToOthers: false, mode: DIR_MODE };
  }
  const mode = (await lstat(dir)).mode & 0o7777;
  return { created: false, openToOthers: (mode & 0o077) !== 0, mode };
}

/** `0755` for messages. */
export function octal(mode: number): string {
  return `0${(mode & 0o7777).toString(8)}`;
}
