import { mkdir, readdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { accountDirName } from "./filename.js";
import { fileSize, hashFile, Manifest } from "./manifest.js";
import type { AccountState, ExportOptions, ExportSummary } from "./types.js";
import { splitRange, type Window } from "./windows.js";

/** What the run works through, laid out before its first request. */
export interface ExportPlan {
  /** Absolute. */
  outDir: string;
  /** The windows each account's list is read in, newest first. */
  windows: Window[];
  accounts: AccountState[];
  /** The run's tally, all zero, that the record fills in. */
  summary: ExportSummary;
  /** What earlier runs saved; open for appending until the run ends. */
  manifest: Manifest;
}

/** `saveStatement`'s temporary files: `.<name>.<random>.part`. */
const PART_FILE = /^\..+\.part$/;

/**
 * Lays out the run: the output directory, the windows, a tally per account,
 * and what earlier runs left there — their `.part` files removed, their
 * manifest loaded, each reported when there is something to say. It makes
 * no request, so it needs no client.
 */
export async function planExport(options: Omit<ExportOptions, "client" | "signal">): Promise<ExportPlan> {
  const { progress } = options;
  const outDir = resolve(options.outDir);
  await mkdir(outDir, { recursive: true });
  const windows = splitRange(options.from, options.to);
  const accounts: AccountState[] = options.accounts.map((accountId) => {
    const dir = accountDirName(accountId);
    return {
      summary: { accountId, dir, listed: 0, downloaded: 0, alreadyPresent: 0, unavailable: 0, failed: 0, noStatements: false, listError: null },
      dirPath: join(outDir, dir),
      ready: undefined,
    };
  });
  const summary: ExportSummary = {
    providerId: options.providerId,
    outDir,
    from: options.from.toISOString(),
    to: options.to.toISOString(),
    windows: windows.map((w) => ({ start: w.start.toISOString(), end: w.end.toISOString() })),
    accounts: accounts.map((a) => a.summary),
    listed: 0,
    downloaded: 0,
    bytes: 0,
    alreadyPresent: 0,
    unavailable: [],
    duplicates: 0,
    failed: [],
    noStatements: [],
    listFailed: [],
    removedPartFiles: 0,
    rateLimit: options.rate.stats(),
    interrupted: false,
    elapsedMs: 0,
  };

  // Only this run's accounts: another shard may be writing beside them.
  for (const account of accounts) summary.removedPartFiles += await removePartFiles(account.dirPath);
  if (summary.removedPartFiles > 0) progress.note(`Removed ${summary.removedPartFiles} temporary .part file(s) left by an earlier run.`);

  const manifest = await Manifest.open(outDir, options.redact);
  if (manifest.skippedLines > 0) progress.note(`manifest.jsonl: ${manifest.skippedLines} unreadable line(s) ignored (a run killed while writing).`);
  return { outDir, windows, accounts, summary, manifest };
}

/** Removes `saveStatement` temporary files left in `dir` by a killed run; resolves with how many. */
async function removePartFiles(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  const stale = names.filter((name) => PART_FILE.test(name));
  await Promise.all(stale.map((name) => rm(join(dir, name), { force: true })));
  return stale.length;
}

/** What an earlier run left of one statement's file. */
export type Saved =
  /** In the manifest, and on disk with the recorded size: nothing to do. */
  | { state: "recorded" }
  /** Complete on disk but not in the manifest: its line is still to write. */
  | { state: "unrecorded"; bytes: number; sha256: string }
  /** Not there, or not the file the manifest describes: to download. */
  | { state: "missing" };

/** Whether the statement saved as `file` (relative to the output directory) at `path` needs downloading. */
export async function findSaved(manifest: Manifest, file: string, path: string): Promise<Saved> {
  const recorded = manifest.get(file);
  const size = await fileSize(path);
  if (recorded !== undefined && size === recorded.bytes) return { state: "recorded" };
  if (recorded === undefined && size !== undefined) {
    // Complete (saveStatement renames only whole files) but unrecorded: a run killed
    // between the rename and the manifest line, or a file put there by hand. Kept as is.
    const { sha256, bytes } = await hashFile(path);
    return { state: "unrecorded", bytes, sha256 };
  }
  return { state: "missing" };
}
