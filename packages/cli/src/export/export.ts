import { planExport } from "./plan.js";
import { ExportRecord } from "./record.js";
import { runExport } from "./run.js";
import type { ExportOptions, ExportResult } from "./types.js";

export type { AccountSummary, ExportOptions, ExportResult, ExportSummary, FailedStatement, SkippedStatement } from "./types.js";

/**
 * Exports the statements of many accounts over a date range as PDF files:
 * `DIR/<account dir>/<YYYY-MM-DD>_<hash>.pdf`, each recorded in
 * `DIR/manifest.jsonl` with its size and SHA-256.
 *
 * Three steps. The plan lays out the accounts, the windows (at most one year
 * each) and what earlier runs left. The run lists each account window by
 * window, lazily page by page, handling every statement once, and downloads
 * on workers that share the rate-limit controller; a file is written under a
 * temporary name and renamed, so a file at its final name is always complete.
 * The record counts each outcome, shows it, and writes the manifest line of
 * each file saved, so a rerun skips what is recorded (the file still there
 * with its size) or found complete at its name, and downloads the rest.
 */
export async function exportStatements(options: ExportOptions): Promise<ExportResult> {
  const started = performance.now();
  const plan = await planExport(options);
  const record = new ExportRecord(plan.summary, plan.manifest, options.progress);
  try {
    await runExport(options, plan, record);
  } finally {
    await plan.manifest.close();
  }
  return record.finish(options.signal.aborted, options.rate.stats(), performance.now() - started);
}
