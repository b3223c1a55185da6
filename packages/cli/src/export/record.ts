import { displayDate } from "../dates.js";
import { describeError } from "../errors.js";
import type { Manifest, ManifestEntry } from "./manifest.js";
import type { Progress } from "./progress.js";
import type { RateStats } from "./rate-limit.js";
import type { AccountSummary, ExportResult, ExportSummary, Item } from "./types.js";

/**
 * What the run did, written as it happens: each outcome counts in its
 * account's tally and the run's, shows on the progress display, and a saved
 * file gets its manifest line. It also keeps what decides the exit code: the
 * first list error, and a failure that stops the whole run.
 */
export class ExportRecord {
  readonly summary: ExportSummary;
  readonly #manifest: Manifest;
  readonly #progress: Progress;
  #listErrorCause: unknown;
  #fatal: unknown;

  constructor(summary: ExportSummary, manifest: Manifest, progress: Progress) {
    this.summary = summary;
    this.#manifest = manifest;
    this.#progress = progress;
  }

  /** A statement listed for the first time for its account: one more to handle. */
  listed(account: AccountSummary): void {
    account.listed++;
    this.summary.listed++;
    this.#progress.addTotal(1);
  }

  /** A statement its account had listed already: handled once. */
  duplicate(): void {
    this.summary.duplicates++;
  }

  /** An account's list stopped on `error`; what it listed before still counts. */
  listFailed(account: AccountSummary, error: unknown): void {
    this.#listErrorCause ??= error;
    const report = describeError(error);
    account.listError = report;
    this.summary.listFailed.push({ accountId: account.accountId, error: report });
    this.#progress.failure(`${account.accountId}: the statement list could not be read`, error);
  }

  /** Every window of the account is read: one that listed nothing, and did not fail, is worth a note. */
  listDone(account: AccountSummary): void {
    if (account.listed > 0 || account.listError !== null) return;
    account.noStatements = true;
    this.summary.noStatements.push(account.accountId);
    this.#progress.note(`${account.accountId}: no statements listed`);
  }

  /** An error no other account would fare better with: it ends the run and becomes its answer. */
  fatal(error: unknown): void {
    this.#fatal ??= error;
  }

  /** A statement the provider cannot serve (yet), by its upper-cased `status`. */
  unavailable(item: Item, status: string): void {
    const { account, statement } = item;
    account.summary.unavailable++;
    this.summary.unavailable.push({ accountId: account.summary.accountId, statementId: statement.statementId, statementDate: statement.statementDate, status });
    this.#progress.item({ kind: "unavailable", label: label(item), status });
  }

  /**
   * A statement an earlier run saved as `file`. `unrecorded` carries the size
   * and hash of a complete file the manifest lacks, whose line is written now.
   */
  async present(item: Item, file: string, unrecorded?: { bytes: number; sha256: string }): Promise<void> {
    if (unrecorded) await this.#manifest.append(entry(item, file, unrecorded.bytes, unrecorded.sha256));
    item.account.summary.alreadyPresent++;
    this.summary.alreadyPresent++;
    this.#progress.item({ kind: "present", file });
  }

  /** A statement downloaded and saved as `file`. */
  async saved(item: Item, file: string, bytes: number, sha256: string): Promise<void> {
    await this.#manifest.append(entry(item, file, bytes, sha256));
    item.account.summary.downloaded++;
    this.summary.downloaded++;
    this.summary.bytes += bytes;
    this.#progress.item({ kind: "saved", file, bytes });
  }

  /** A statement that could not be saved; `file` is where it was to go, when it got that far. */
  failed(item: Item, file: string | undefined, error: unknown): void {
    const report = describeError(error);
    item.account.summary.failed++;
    this.summary.failed.push({
      accountId: item.account.summary.accountId,
      statementId: item.statement.statementId,
      statementDate: item.statement.statementDate,
      file,
      error: report,
    });
    const detail = [report.status !== undefined ? `HTTP ${report.status}` : undefined, report.code !== undefined ? `FDX code ${report.code}` : undefined]
      .filter(Boolean)
      .join(", ");
    this.#progress.item({
      kind: "failed",
      label: file ? `${label(item)} -> ${file}` : label(item),
      message: `${report.message}${detail ? ` (${detail})` : ""}`,
    });
  }

  /**
   * The run's answer. An interrupted run answers with the interruption alone,
   * never with a fatal error too: the user stopped it, and a rerun resumes it.
   */
  finish(interrupted: boolean, rateLimit: RateStats, elapsedMs: number): ExportResult {
    this.summary.interrupted = interrupted;
    this.summary.rateLimit = rateLimit;
    this.summary.elapsedMs = elapsedMs;
    return {
      summary: this.summary,
      ...(this.#listErrorCause !== undefined ? { listErrorCause: this.#listErrorCause } : {}),
      ...(this.#fatal !== undefined && !interrupted ? { fatal: this.#fatal } : {}),
    };
  }
}

/** How a statement is named on the progress display. */
function label(item: Item): string {
  return `${item.account.summary.accountId} ${displayDate(item.statement.statementDate) ?? "undated"} ${item.statement.statementId ?? "(no id)"}`;
}

/** The manifest line of a statement saved as `file`. */
function entry(item: Item, file: string, bytes: number, sha256: string): ManifestEntry {
  const { statement } = item;
  return {
    accountId: item.account.summary.accountId,
    // Only a string: the manifest's readers take nothing else, and a line they skip would be written again on every rerun.
    statementId: typeof statement.statementId === "string" ? statement.statementId : null,
    statementDate: statement.statementDate ?? null,
    file,
    bytes,
    sha256,
  };
}
