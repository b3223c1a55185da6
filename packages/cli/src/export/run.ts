import { FdxRateLimitError } from "@fdxkit/client";
import { join } from "node:path";
import { downloadStatement } from "./download.js";
import { statementFileName } from "./filename.js";
import { listItems } from "./list.js";
import { findSaved, type ExportPlan } from "./plan.js";
import { runPool } from "./pool.js";
import type { ExportRecord } from "./record.js";
import type { ExportOptions, Item } from "./types.js";

/** Statuses whose document cannot be downloaded. */
const UNAVAILABLE = new Set(["PROCESSING", "FAILED"]);

/**
 * Handles every listed statement on up to `rate.max` workers that share the
 * rate-limit controller: a 429 pauses them all and lowers the limit. A
 * failed download is recorded and the others go on. Aborting `signal` stops
 * the listing and cancels the downloads in flight.
 */
export async function runExport(options: ExportOptions, plan: ExportPlan, record: ExportRecord): Promise<void> {
  const { signal, rate } = options;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const handle = (item: Item) => handleStatement(options, plan, record, item);
    const { sourceError } = await runPool(listItems(options, plan, record), rate.max, rate, handle, stop.signal);
    if (sourceError !== undefined) record.fatal(sourceError);
  } finally {
    signal.removeEventListener("abort", onAbort);
    rate.close();
  }
}

/** Handles one statement; resolves with whether a request it made succeeded. */
async function handleStatement(options: ExportOptions, plan: ExportPlan, record: ExportRecord, item: Item): Promise<boolean> {
  const { client, providerId, signal, progress, rate } = options;
  const { statement, account } = item;
  const { accountId } = account.summary;
  const status = typeof statement.status === "string" ? statement.status.toUpperCase() : undefined;
  if (status !== undefined && UNAVAILABLE.has(status)) {
    record.unavailable(item, status);
    return false;
  }
  if (statement.statementId != null && typeof statement.statementId !== "string") {
    // Known by its link instead (file name and manifest), so it is saved once and found again by a rerun.
    progress.note(`${accountId}: a statement's statementId is not a string (${JSON.stringify(statement.statementId).slice(0, 60)}): it is known by its link`);
  }
  const name = statementFileName(statement, { providerId, accountId });
  if (name === undefined) {
    record.failed(item, undefined, new Error("the statement has neither a statementId nor a link"));
    return false;
  }
  const file = `${account.summary.dir}/${name}`;
  const path = join(account.dirPath, name);
  try {
    const saved = await findSaved(plan.manifest, file, path);
    if (saved.state !== "missing") {
      await record.present(item, file, saved.state === "unrecorded" ? saved : undefined);
      return false;
    }
    const { bytes, sha256 } = await downloadStatement(client, providerId, account, statement, path, signal);
    await record.saved(item, file, bytes, sha256);
    return true;
  } catch (error) {
    // Cancelled by Ctrl-C: not a failure of the statement; saveStatement removed its temporary file.
    if (signal.aborted) return false;
    // Out of retries (or told to wait over a minute): the others still pause for it.
    if (error instanceof FdxRateLimitError) rate.rateLimited(error.retryAfterMs);
    record.failed(item, file, error);
    return false;
  }
}
