import { createHash } from "node:crypto";
import { mkdir, readdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { FdxRateLimitError, FdxUnauthorizedError, type FdxClient, type Statement, type StatementIds } from "@fdxkit/client";
import { FdxReauthorizationRequiredError } from "@fdxkit/client/auth";
import { saveStatement } from "@fdxkit/client/node";
import { displayDate } from "../dates.js";
import { describeError, type ErrorReport } from "../errors.js";
import { accountDirName, statementFileName } from "./filename.js";
import { fileSize, hashFile, Manifest } from "./manifest.js";
import { pdfSignature } from "./pdf.js";
import { runPool } from "./pool.js";
import type { Progress } from "./progress.js";
import type { AimdController, RateStats } from "./rate-limit.js";
import { splitRange, type Window } from "./windows.js";

export interface ExportOptions {
  client: FdxClient;
  providerId: string;
  /** The accounts to export (already those of this shard), in order. */
  accounts: readonly string[];
  from: Date;
  to: Date;
  outDir: string;
  /** Bounds the requests in flight; its `onRetry` must be the client's hook. */
  rate: AimdController;
  /** Aborting it cancels the page request and the downloads in flight; nothing partial is left. */
  signal: AbortSignal;
  progress: Progress;
  /** Masks the run's secrets in what is written to the manifest. */
  redact?: (text: string) => string;
}

/** A statement the export did not save because the provider cannot serve it (yet). */
export interface SkippedStatement {
  accountId: string;
  statementId: string | undefined;
  statementDate: string | undefined;
  status: string;
}

export interface FailedStatement {
  accountId: string;
  statementId: string | undefined;
  statementDate: string | undefined;
  /** Relative to the output directory. */
  file: string | undefined;
  error: ErrorReport;
}

export interface AccountSummary {
  accountId: string;
  /** The account's directory, relative to the output directory. */
  dir: string;
  /** Statements listed (each once, whatever number of windows listed it). */
  listed: number;
  downloaded: number;
  alreadyPresent: number;
  unavailable: number;
  failed: number;
  /**
   * No window listed a statement (an account without any, which providers answer 404 with FDX code 1108,
   * or none in the range). Not a failure.
   */
  noStatements: boolean;
  /** The list could not be read (to the end): what was listed before was still exported. */
  listError: ErrorReport | null;
}

export interface ExportSummary {
  providerId: string;
  outDir: string;
  from: string;
  to: string;
  /** The windows each account's list was read in, newest first. */
  windows: { start: string; end: string }[];
  accounts: AccountSummary[];
  listed: number;
  downloaded: number;
  bytes: number;
  /** Already saved by an earlier run (in the manifest with the right size, or complete at its name). */
  alreadyPresent: number;
  /** Not downloadable yet or at all: PROCESSING and FAILED statements. */
  unavailable: SkippedStatement[];
  /** Listings of a statement already listed for its account (a window edge, or a provider repeating itself): kept once. */
  duplicates: number;
  failed: FailedStatement[];
  /** Accounts whose windows listed no statement (none at all, FDX code 1108, or none in the range). */
  noStatements: string[];
  /** Accounts whose list could not be read. */
  listFailed: { accountId: string; error: ErrorReport }[];
  /** `.part` files of an earlier, killed run removed at the start. */
  removedPartFiles: number;
  rateLimit: RateStats;
  /** Ctrl-C (or SIGTERM) stopped the run. */
  interrupted: boolean;
  elapsedMs: number;
}

export interface ExportResult {
  summary: ExportSummary;
  /** The first list error (for the exit code), when an account's list failed. */
  listErrorCause?: unknown;
  /** A failure that stopped the whole run (the credentials were refused). */
  fatal?: unknown;
}

/** Statuses whose document cannot be downloaded. */
const UNAVAILABLE = new Set(["PROCESSING", "FAILED"]);
/** `saveStatement`'s temporary files: `.<name>.<random>.part`. */
const PART_FILE = /^\..+\.part$/;

interface Item {
  account: AccountState;
  statement: Statement;
}

interface AccountState {
  summary: AccountSummary;
  dirPath: string;
  ready: Promise<void> | undefined;
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

/** A pass-through stream that hashes what it passes. */
function hashing(): { stream: TransformStream<Uint8Array, Uint8Array>; digest: () => string } {
  const hash = createHash("sha256");
  const stream = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      hash.update(chunk);
      controller.enqueue(chunk);
    },
  });
  return { stream, digest: () => hash.digest("hex") };
}

/**
 * Exports the statements of many accounts over a date range as PDF files:
 * `DIR/<account dir>/<YYYY-MM-DD>_<hash>.pdf`, each recorded in
 * `DIR/manifest.jsonl` with its size and SHA-256.
 *
 * Each account's list is read window by window (at most one year each),
 * lazily page by page, and every statement is handled once (by statement id)
 * however many windows list it. Downloads run on up to `rate.max` workers
 * that share the rate-limit controller: a 429 pauses them all and lowers the
 * limit. Each file is written through `saveStatement` (temporary file, then
 * rename), so a file at its final name is always complete; a rerun skips
 * those recorded in the manifest (the file still there with its size) or
 * found complete at their name, and downloads the rest. A failed download is
 * recorded and the others go on; an account whose list fails is recorded
 * and the next one goes on.
 */
export async function exportStatements(options: ExportOptions): Promise<ExportResult> {
  const { client, providerId, signal, progress, rate } = options;
  const started = performance.now();
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
    providerId,
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
    rateLimit: rate.stats(),
    interrupted: false,
    elapsedMs: 0,
  };

  // Only this run's accounts: another shard may be writing beside them.
  for (const account of accounts) summary.removedPartFiles += await removePartFiles(account.dirPath);
  if (summary.removedPartFiles > 0) progress.note(`Removed ${summary.removedPartFiles} temporary .part file(s) left by an earlier run.`);

  const manifest = await Manifest.open(outDir, options.redact);
  if (manifest.skippedLines > 0) progress.note(`manifest.jsonl: ${manifest.skippedLines} unreadable line(s) ignored (a run killed while writing).`);

  let listErrorCause: unknown;
  let fatal: unknown;

  async function* listAccount(account: AccountState, window: Window): AsyncGenerator<Statement> {
    const paginator = client.statements.list(
      { providerId, accountId: account.summary.accountId, startTime: window.start, endTime: window.end },
      // A job nobody waits on: providers that prioritise by it serve their users first.
      { signal, actorType: "batch" },
    );
    // A first page answered 404 with FDX code 1108 (no statements at all) is an empty list to the client.
    for await (const page of paginator.pages()) yield* page.statements;
  }

  async function* items(): AsyncGenerator<Item> {
    for (const account of accounts) {
      const { accountId } = account.summary;
      const seen = new Set<string>();
      for (const window of windows) {
        try {
          for await (const statement of listAccount(account, window)) {
            const identity = statement.statementId ?? statement.links?.find((l) => typeof l?.href === "string")?.href;
            if (identity !== undefined) {
              if (seen.has(identity)) {
                summary.duplicates++;
                continue;
              }
              seen.add(identity);
            }
            account.summary.listed++;
            summary.listed++;
            progress.addTotal(1);
            yield { account, statement };
          }
        } catch (error) {
          if (signal.aborted) return;
          // Refused credentials, or an end user's connection that needs their approval again: no account will fare better.
          if (error instanceof FdxUnauthorizedError || error instanceof FdxReauthorizationRequiredError) {
            fatal = error;
            return;
          }
          listErrorCause ??= error;
          const report = describeError(error);
          account.summary.listError = report;
          summary.listFailed.push({ accountId, error: report });
          progress.failure(`${accountId}: the statement list could not be read`, error);
          break;
        }
      }
      if (account.summary.listed === 0 && account.summary.listError === null) {
        account.summary.noStatements = true;
        summary.noStatements.push(accountId);
        progress.note(`${accountId}: no statements listed`);
      }
    }
  }

  const label = (item: Item) => `${item.account.summary.accountId} ${displayDate(item.statement.statementDate) ?? "undated"} ${item.statement.statementId ?? "(no id)"}`;

  function fail(item: Item, file: string | undefined, error: unknown): void {
    const report = describeError(error);
    item.account.summary.failed++;
    summary.failed.push({
      accountId: item.account.summary.accountId,
      statementId: item.statement.statementId,
      statementDate: item.statement.statementDate,
      file,
      error: report,
    });
    const detail = [report.status !== undefined ? `HTTP ${report.status}` : undefined, report.code !== undefined ? `FDX code ${report.code}` : undefined]
      .filter(Boolean)
      .join(", ");
    progress.item({ kind: "failed", label: file ? `${label(item)} -> ${file}` : label(item), message: `${report.message}${detail ? ` (${detail})` : ""}` });
  }

  /** Handles one statement; resolves with whether a request it made succeeded. */
  async function handle(item: Item): Promise<boolean> {
    const { statement, account } = item;
    const { accountId } = account.summary;
    const status = typeof statement.status === "string" ? statement.status.toUpperCase() : undefined;
    if (status !== undefined && UNAVAILABLE.has(status)) {
      account.summary.unavailable++;
      summary.unavailable.push({ accountId, statementId: statement.statementId, statementDate: statement.statementDate, status });
      progress.item({ kind: "unavailable", label: label(item), status });
      return false;
    }
    if (statement.statementId != null && typeof statement.statementId !== "string") {
      // Known by its link instead (file name and manifest), so it is saved once and found again by a rerun.
      progress.note(`${accountId}: a statement's statementId is not a string (${JSON.stringify(statement.statementId).slice(0, 60)}): it is known by its link`);
    }
    const name = statementFileName(statement, { providerId, accountId });
    if (name === undefined) {
      fail(item, undefined, new Error("the statement has neither a statementId nor a link"));
      return false;
    }
    const file = `${account.summary.dir}/${name}`;
    const path = join(account.dirPath, name);
    const entryOf = (bytes: number, sha256: string) => ({
      accountId,
      // Only a string: the manifest's readers take nothing else, and a line they skip would be written again on every rerun.
      statementId: typeof statement.statementId === "string" ? statement.statementId : null,
      statementDate: statement.statementDate ?? null,
      file,
      bytes,
      sha256,
    });
    try {
      const recorded = manifest.get(file);
      const size = await fileSize(path);
      if (recorded !== undefined && size === recorded.bytes) {
        account.summary.alreadyPresent++;
        summary.alreadyPresent++;
        progress.item({ kind: "present", file });
        return false;
      }
      if (recorded === undefined && size !== undefined) {
        // Complete (saveStatement renames only whole files) but unrecorded: a run killed
        // between the rename and the manifest line, or a file put there by hand. Kept as is.
        const { sha256, bytes } = await hashFile(path);
        await manifest.append(entryOf(bytes, sha256));
        account.summary.alreadyPresent++;
        summary.alreadyPresent++;
        progress.item({ kind: "present", file });
        return false;
      }
      account.ready ??= mkdir(account.dirPath, { recursive: true }).then(() => undefined);
      await account.ready;
      const document = await client.statements.download(downloadTarget(statement, providerId, accountId), { signal, actorType: "batch" });
      if (!/pdf/i.test(document.contentType)) {
        await document.body.cancel().catch(() => undefined);
        throw new Error(`expected a PDF, got ${JSON.stringify(document.contentType)}`);
      }
      const hash = hashing();
      // saveStatement removes its temporary file when the body errors, as it does on an abort (or on bytes that are no PDF).
      const saved = await saveStatement({ body: document.body.pipeThrough(pdfSignature()).pipeThrough(hash.stream) }, path);
      await manifest.append(entryOf(saved.bytes, hash.digest()));
      account.summary.downloaded++;
      summary.downloaded++;
      summary.bytes += saved.bytes;
      progress.item({ kind: "saved", file, bytes: saved.bytes });
      return true;
    } catch (error) {
      // Cancelled by Ctrl-C: not a failure of the statement; saveStatement removed its temporary file.
      if (signal.aborted) return false;
      // Out of retries (or told to wait over a minute): the others still pause for it.
      if (error instanceof FdxRateLimitError) rate.rateLimited(error.retryAfterMs);
      fail(item, file, error);
      return false;
    }
  }

  const source = items();
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const { sourceError } = await runPool(source, rate.max, rate, handle, stop.signal);
    if (sourceError !== undefined) fatal ??= sourceError;
  } finally {
    signal.removeEventListener("abort", onAbort);
    rate.close();
    await manifest.close();
  }
  summary.interrupted = signal.aborted;
  summary.rateLimit = rate.stats();
  summary.elapsedMs = performance.now() - started;
  return {
    summary,
    ...(listErrorCause !== undefined ? { listErrorCause } : {}),
    ...(fatal !== undefined && !signal.aborted ? { fatal } : {}),
  };
}

/** The statement itself when it carries a link (preferred: its tokenized id is already in URL form), else its ids. */
function downloadTarget(statement: Statement, providerId: string, accountId: string): Statement | StatementIds {
  const hasLink = Array.isArray(statement.links) && statement.links.some((link) => typeof link?.href === "string" && link.href !== "");
  if (hasLink || typeof statement.statementId !== "string") return statement;
  return { providerId, accountId, statementId: statement.statementId };
}
