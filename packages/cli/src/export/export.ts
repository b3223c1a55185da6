import { mkdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { FdxClient, Statement, StatementIds } from "@fdxkit/client";
import { saveStatement } from "@fdxkit/client/node";
import { displayDate } from "../dates.js";
import { describeError, type ErrorReport } from "../errors.js";
import { abortableBody, raceAbort } from "./abortable.js";
import { statementFileName } from "./filename.js";
import { runPool } from "./pool.js";
import type { Progress } from "./progress.js";

export interface ExportOptions {
  client: FdxClient;
  providerId: string;
  accountId: string;
  startTime: string;
  endTime: string;
  outDir: string;
  concurrency: number;
  /** Aborting it cancels the page request and the downloads in flight; nothing partial is left. */
  signal: AbortSignal;
  progress: Progress;
}

/** A statement the export did not save, for the summary. */
export interface SkippedStatement {
  statementId: string | undefined;
  statementDate: string | undefined;
  status: string;
}

export interface FailedStatement {
  statementId: string | undefined;
  statementDate: string | undefined;
  file: string | undefined;
  error: ErrorReport;
}

export interface ExportSummary {
  providerId: string;
  accountId: string;
  outDir: string;
  /** Statements listed (and so looked at) before the run ended. */
  listed: number;
  downloaded: number;
  bytes: number;
  /** Already complete in the directory (an earlier run saved them). */
  alreadyPresent: number;
  /** Not downloadable yet or at all: PROCESSING and FAILED statements. */
  unavailable: SkippedStatement[];
  /** Listed more than once (same file name): saved once. */
  duplicates: number;
  failed: FailedStatement[];
  /** Ctrl-C (or SIGTERM) stopped the run. */
  interrupted: boolean;
  /** The statement list itself could not be read (further); what was listed before was still processed. */
  listError: ErrorReport | null;
  elapsedMs: number;
}

/** Statuses whose document cannot be downloaded. */
const UNAVAILABLE = new Set(["PROCESSING", "FAILED"]);

/**
 * Exports an account's statements in a date range as PDF files, reading the
 * list lazily page by page and downloading with bounded concurrency. Each
 * file is written through `saveStatement` (temporary file, then rename), so a
 * file at its final name is always complete: a re-run skips those and
 * downloads the rest. A failed download is recorded and the others go on.
 */
export async function exportStatements(options: ExportOptions): Promise<{ summary: ExportSummary; listErrorCause?: unknown }> {
  const { client, providerId, accountId, signal, progress } = options;
  const started = performance.now();
  const outDir = resolve(options.outDir);
  await mkdir(outDir, { recursive: true });

  const summary: ExportSummary = {
    providerId,
    accountId,
    outDir,
    listed: 0,
    downloaded: 0,
    bytes: 0,
    alreadyPresent: 0,
    unavailable: [],
    duplicates: 0,
    failed: [],
    interrupted: false,
    listError: null,
    elapsedMs: 0,
  };
  const claimed = new Set<string>();

  const paginator = client.statements.list(
    { providerId, accountId, startTime: options.startTime, endTime: options.endTime },
    // One page ahead: the next page loads while this one downloads.
    { signal, prefetch: 1 },
  );
  async function* statements(): AsyncGenerator<Statement> {
    for await (const page of paginator.pages()) {
      summary.listed += page.statements.length;
      progress.addTotal(page.statements.length);
      yield* page.statements;
    }
  }

  const label = (s: Statement) => `${displayDate(s.statementDate) ?? "undated"} ${s.statementId ?? "(no id)"}`;

  async function handle(statement: Statement): Promise<void> {
    const status = typeof statement.status === "string" ? statement.status.toUpperCase() : undefined;
    if (status !== undefined && UNAVAILABLE.has(status)) {
      summary.unavailable.push({ statementId: statement.statementId, statementDate: statement.statementDate, status });
      progress.item({ kind: "unavailable", label: label(statement), status });
      return;
    }
    const file = statementFileName(statement, { providerId, accountId });
    if (file === undefined) {
      const error = { error: "Error", message: "the statement has neither a statementId nor a link" };
      summary.failed.push({ statementId: undefined, statementDate: statement.statementDate, file, error });
      progress.item({ kind: "failed", label: label(statement), message: error.message });
      return;
    }
    if (claimed.has(file)) {
      summary.duplicates++;
      progress.item({ kind: "duplicate", file });
      return;
    }
    claimed.add(file);
    const path = join(outDir, file);
    if (await isFile(path)) {
      summary.alreadyPresent++;
      progress.item({ kind: "present", file });
      return;
    }
    try {
      const document = await raceAbort(
        client.statements.download(downloadTarget(statement, providerId, accountId), { signal }),
        signal,
        (late) => void late.body.cancel().catch(() => undefined),
      );
      if (!/pdf/i.test(document.contentType)) {
        await document.body.cancel().catch(() => undefined);
        throw new Error(`expected a PDF, got ${JSON.stringify(document.contentType)}`);
      }
      // saveStatement removes its temporary file when the body errors, as it does on an abort.
      const saved = await saveStatement({ body: abortableBody(document.body, signal) }, path);
      summary.downloaded++;
      summary.bytes += saved.bytes;
      progress.item({ kind: "saved", file, bytes: saved.bytes });
    } catch (error) {
      // Cancelled by Ctrl-C: not a failure of the statement; saveStatement removed its temporary file.
      if (signal.aborted) return;
      const report = describeError(error);
      summary.failed.push({ statementId: statement.statementId, statementDate: statement.statementDate, file, error: report });
      const detail = [report.status !== undefined ? `HTTP ${report.status}` : undefined, report.code !== undefined ? `FDX code ${report.code}` : undefined]
        .filter(Boolean)
        .join(", ");
      progress.item({ kind: "failed", label: `${label(statement)} -> ${file}`, message: `${report.message}${detail ? ` (${detail})` : ""}` });
    }
  }

  const { sourceError } = await runPool(statements(), options.concurrency, handle, () => signal.aborted, signal);
  summary.interrupted = signal.aborted;
  if (sourceError !== undefined && !signal.aborted) summary.listError = describeError(sourceError);
  summary.elapsedMs = performance.now() - started;
  return sourceError !== undefined && !signal.aborted ? { summary, listErrorCause: sourceError } : { summary };
}

/** The statement itself when it carries a link (preferred: its tokenized id is already in URL form), else its ids. */
function downloadTarget(statement: Statement, providerId: string, accountId: string): Statement | StatementIds {
  const hasLink = Array.isArray(statement.links) && statement.links.some((link) => typeof link?.href === "string" && link.href !== "");
  if (hasLink || typeof statement.statementId !== "string") return statement;
  return { providerId, accountId, statementId: statement.statementId };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
