// What the store's tests look at on disk.
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const octal = (mode: number) => `0${(mode & 0o7777).toString(8)}`;

/** Every entry under `dir` (itself excluded) whose mode lets group or others in, as `mode path`. */
export function openEntries(dir: string): string[] {
  const found: string[] = [];
  const visit = (target: string) => {
    for (const name of readdirSync(target)) {
      const entry = path.join(target, name);
      const info = lstatSync(entry);
      if (info.isSymbolicLink()) continue;
      if ((info.mode & 0o077) !== 0) found.push(`${octal(info.mode)} ${path.relative(dir, entry)}`);
      if (info.isDirectory()) visit(entry);
    }
  };
  visit(dir);
  return found;
}

/** Every regular file under `dir` whose bytes contain `needle`, as paths relative to `dir`. */
export function filesContaining(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle);
  const found: string[] = [];
  const visit = (target: string) => {
    for (const name of readdirSync(target)) {
      const entry = path.join(target, name);
      const info = lstatSync(entry);
      if (info.isDirectory()) visit(entry);
      else if (info.isFile() && readFileSync(entry).includes(bytes)) found.push(path.relative(dir, entry));
    }
  };
  visit(dir);
  return found;
}

/** How many entries lie under `dir` (itself excluded). */
export function countEntries(dir: string): number {
  let count = 0;
  const visit = (target: string) => {
    for (const name of readdirSync(target)) {
      count++;
      const entry = path.join(target, name);
      if (lstatSync(entry).isDirectory()) visit(entry);
    }
  };
  visit(dir);
  return count;
}
