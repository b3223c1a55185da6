import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FdxRateLimitError, type Statement } from "@fdxkit/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Manifest } from "../../src/export/manifest.js";
import type { ItemEvent, Progress } from "../../src/export/progress.js";
import { ExportRecord } from "../../src/export/record.js";
import type { AccountState, ExportSummary, Item } from "../../src/export/types.js";

let dir: string;
let manifest: Manifest;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fdxkit-cli-record-"));
  manifest = await Manifest.open(dir, (text) => text.replaceAll("sekrit", "***"));
});
afterEach(async () => {
  await manifest.close();
  await rm(dir, { recursive: true, force: true });
});

/** What the progress display was told, in order. */
function progressLog() {
  const log: (ItemEvent | { note: string } | { failure: string; error: unknown } | { total: number })[] = [];
  const progress: Progress = {
    addTotal: (total) => log.push({ total }),
    item: (event) => log.push(event),
    note: (note) => log.push({ note }),
    failure: (failure, error) => log.push({ failure, error }),
    stop: () => undefined,
  };
  return { log, progress };
}

function account(accountId: string): AccountState {
  const summary = {
    accountId,
    dir: `${accountId}-0000`,
    listed: 0,
    downloaded: 0,
    alreadyPresent: 0,
    unavailable: 0,
    failed: 0,
    noStatements: false,
    listError: null,
  };
  return { summary, dirPath: join(dir, summary.dir), ready: undefined };
}

function emptySummary(accounts: AccountState[]): ExportSummary {
  const rateLimit = { rateLimited: 0, pauses: 0, minLimit: 2, limit: 2, pace: null };
  return {
    ...{ providerId: "prov", outDir: dir, from: "2025-01-01T00:00:00.000Z", to: "2025-12-31T23:59:59.999Z", windows: [] },
    ...{ accounts: accounts.map((a) => a.summary), listed: 0, downloaded: 0, bytes: 0, alreadyPresent: 0, unavailable: [], duplicates: 0 },
    ...{ failed: [], noStatements: [], listFailed: [], removedPartFiles: 0, rateLimit, interrupted: false, elapsedMs: 0 },
  };
}

const sha256 = "b".repeat(64);
const manifestLines = async () =>
  (await readFile(join(dir, "manifest.jsonl"), "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));

describe("ExportRecord", () => {
  it("counts each outcome in its account and the run, shows it, and writes a manifest line for each file it now knows", async () => {
    const acc = account("ACC-1");
    const { log, progress } = progressLog();
    const record = new ExportRecord(emptySummary([acc]), manifest, progress);
    const item = (statement: Statement): Item => ({ account: acc, statement });

    record.listed(acc.summary);
    record.duplicate();
    await record.saved(item({ statementId: "s-sekrit", statementDate: "2025-01-31" }), "ACC-1-0000/a.pdf", 1200, sha256);
    await record.present(item({ statementId: "s2" }), "ACC-1-0000/b.pdf");
    // A statementId that is no string is recorded as null: the manifest's readers would skip the line otherwise.
    await record.present(item({ statementId: 7 as unknown as string, statementDate: "2025-03-31" }), "ACC-1-0000/c.pdf", { bytes: 10, sha256 });
    record.unavailable(item({ statementId: "s4", statementDate: "2025-04-30T00:00:00Z" }), "PROCESSING");
    record.failed(item({ statementDate: "2025-05-31" }), undefined, new Error("the statement has neither a statementId nor a link"));

    expect(await manifestLines()).toEqual([
      { accountId: "ACC-1", statementId: "s-***", statementDate: "2025-01-31", file: "ACC-1-0000/a.pdf", bytes: 1200, sha256 },
      { accountId: "ACC-1", statementId: null, statementDate: "2025-03-31", file: "ACC-1-0000/c.pdf", bytes: 10, sha256 },
    ]);
    expect(log).toEqual([
      { total: 1 },
      { kind: "saved", file: "ACC-1-0000/a.pdf", bytes: 1200 },
      { kind: "present", file: "ACC-1-0000/b.pdf" },
      { kind: "present", file: "ACC-1-0000/c.pdf" },
      { kind: "unavailable", label: "ACC-1 2025-04-30 s4", status: "PROCESSING" },
      { kind: "failed", label: "ACC-1 2025-05-31 (no id)", message: "the statement has neither a statementId nor a link" },
    ]);
    expect(acc.summary).toMatchObject({ listed: 1, downloaded: 1, alreadyPresent: 2, unavailable: 1, failed: 1 });
    const { summary } = record.finish(false, emptySummary([]).rateLimit, 5);
    expect(summary).toMatchObject({ listed: 1, duplicates: 1, downloaded: 1, bytes: 1200, alreadyPresent: 2, elapsedMs: 5, interrupted: false });
    expect(summary.unavailable).toEqual([{ accountId: "ACC-1", statementId: "s4", statementDate: "2025-04-30T00:00:00Z", status: "PROCESSING" }]);
    expect(summary.failed).toEqual([
      {
        accountId: "ACC-1",
        statementId: undefined,
        statementDate: "2025-05-31",
        file: undefined,
        error: { error: "Error", message: "the statement has neither a statementId nor a link" },
      },
    ]);
  });

  it("shows a failed download with its file, the HTTP status and the FDX code", async () => {
    const acc = account("ACC-1");
    const { log, progress } = progressLog();
    const record = new ExportRecord(emptySummary([acc]), manifest, progress);
    const url = "https://fdx.test/accounts/ACC-1/statements/s1";
    const error = new FdxRateLimitError({
      status: 429,
      code: "1207",
      message: "Too many requests",
      debugMessage: undefined,
      body: null,
      headers: {},
      method: "GET",
      url,
    });
    record.failed({ account: acc, statement: { statementId: "s1", statementDate: "2025-01-31" } }, "ACC-1-0000/a.pdf", error);
    expect(log).toEqual([{ kind: "failed", label: "ACC-1 2025-01-31 s1 -> ACC-1-0000/a.pdf", message: "Too many requests (HTTP 429, FDX code 1207)" }]);
  });

  it("notes an account that listed nothing, but not one whose list failed; the first list error decides the exit code", async () => {
    const [quiet, broken, busy, later] = [account("ACC-QUIET"), account("ACC-BROKEN"), account("ACC-BUSY"), account("ACC-LATER")];
    const { log, progress } = progressLog();
    const record = new ExportRecord(emptySummary([quiet, broken, busy, later]), manifest, progress);
    const first = new Error("first list error");
    record.listDone(quiet.summary);
    record.listFailed(broken.summary, first);
    record.listDone(broken.summary);
    record.listed(busy.summary);
    record.listDone(busy.summary);
    record.listFailed(later.summary, new Error("second list error"));
    record.listDone(later.summary);

    const result = record.finish(false, emptySummary([]).rateLimit, 1);
    expect(result.listErrorCause).toBe(first);
    expect(result).not.toHaveProperty("fatal");
    expect(result.summary.noStatements).toEqual(["ACC-QUIET"]);
    expect([quiet, broken, busy, later].map((a) => a.summary.noStatements)).toEqual([true, false, false, false]);
    expect(broken.summary.listError).toEqual({ error: "Error", message: "first list error" });
    expect(later.summary.listError).toEqual({ error: "Error", message: "second list error" });
    expect(result.summary.listFailed.map((f) => f.error.message)).toEqual(["first list error", "second list error"]);
    expect(log.filter((e) => "note" in e || "failure" in e).map((e) => ("note" in e ? e.note : e.failure))).toEqual([
      "ACC-QUIET: no statements listed",
      "ACC-BROKEN: the statement list could not be read",
      "ACC-LATER: the statement list could not be read",
    ]);
  });

  it("answers with the first fatal error, unless the run was interrupted", () => {
    const denied = new Error("credentials refused");
    const ended = new ExportRecord(emptySummary([]), manifest, progressLog().progress);
    ended.fatal(denied);
    ended.fatal(new Error("a later error"));
    expect(ended.finish(false, emptySummary([]).rateLimit, 1).fatal).toBe(denied);

    const stopped = new ExportRecord(emptySummary([]), manifest, progressLog().progress);
    stopped.fatal(denied);
    const result = stopped.finish(true, emptySummary([]).rateLimit, 1);
    expect(result).not.toHaveProperty("fatal");
    expect(result.summary.interrupted).toBe(true);
  });
});
