import type { Statement } from "@fdxkit/client";
import type { Command } from "commander";
import { integerOption } from "../config.js";
import { contextFor, type RunState } from "../context.js";
import { displayDate, rangeEnd, rangeStart } from "../dates.js";
import { ExitCode, exitCodeFor, UsageError } from "../errors.js";
import { exportStatements, type ExportSummary } from "../export/export.js";
import { barProgress, lineProgress } from "../export/progress.js";
import { formatBytes, formatDuration, printable, table } from "../output.js";

interface ListOptions {
  provider: string;
  account: string;
  from?: string;
  to?: string;
  limit?: string;
}

interface ExportCommandOptions {
  provider: string;
  account: string;
  from: string;
  to: string;
  out: string;
  concurrency: string;
  progress: boolean;
}

export function registerStatements(program: Command, state: RunState): void {
  const statements = program.command("statements").description("account statements: list them, export their PDFs");

  statements
    .command("list")
    .description("list an account's statements, newest first as the provider sends them")
    .requiredOption("--provider <id>", "provider id")
    .requiredOption("--account <id>", "account id")
    .option("--from <date>", "start of the range: YYYY-MM-DD (start of that day, UTC) or an ISO 8601 date-time")
    .option("--to <date>", "end of the range: YYYY-MM-DD (the whole day, UTC) or an ISO 8601 date-time")
    .option("--limit <n>", "list at most n statements (also the page size asked for)")
    .action(async (options: ListOptions, command: Command) => {
      const ctx = contextFor(command, state);
      const limit = integerOption("--limit", options.limit, 1);
      const startTime = rangeStart(options.from);
      const endTime = rangeEnd(options.to);
      const paginator = ctx.client().statements.list({
        providerId: options.provider,
        accountId: options.account,
        ...(startTime !== undefined ? { startTime } : {}),
        ...(endTime !== undefined ? { endTime } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
      const list = await paginator.toArray(limit !== undefined ? { max: limit } : {});
      ctx.output.data(list, () => statementsTable(list));
    });

  statements
    .command("export")
    .description("download an account's statement PDFs into a directory; a re-run resumes where the last one stopped")
    .requiredOption("--provider <id>", "provider id")
    .requiredOption("--account <id>", "account id")
    .requiredOption("--from <date>", "start of the range (YYYY-MM-DD or ISO 8601)")
    .requiredOption("--to <date>", "end of the range (YYYY-MM-DD: the whole day)")
    .requiredOption("--out <dir>", "directory to write the PDFs to (created if missing)")
    .option("--concurrency <n>", "downloads at a time", "4")
    .option("--no-progress", "plain log lines instead of a progress bar, even on a terminal")
    .action(async (options: ExportCommandOptions, command: Command) => {
      const ctx = contextFor(command, state);
      const concurrency = integerOption("--concurrency", options.concurrency, 1)!;
      if (concurrency > 64) throw new UsageError("--concurrency must be at most 64");
      const startTime = rangeStart(options.from)!;
      const endTime = rangeEnd(options.to)!;
      const client = ctx.client();
      const output = ctx.output;

      const stderr = process.stderr;
      const progress = options.progress && stderr.isTTY ? barProgress(output, stderr) : lineProgress(output);

      // Ctrl-C: cancel the downloads in flight (their temporary files are removed), then summarise.
      const controller = new AbortController();
      let signalCode: ExitCode | undefined;
      const onSignal = (name: NodeJS.Signals) => {
        if (controller.signal.aborted) {
          // A second Ctrl-C: stop now (restoring the cursor the bar hid).
          progress.stop();
          process.exit(name === "SIGTERM" ? ExitCode.Terminated : ExitCode.Interrupted);
        }
        signalCode = name === "SIGTERM" ? ExitCode.Terminated : ExitCode.Interrupted;
        progress.note(`${name === "SIGTERM" ? "Terminated" : "Interrupted"}: cancelling downloads in flight…`);
        controller.abort();
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      let result;
      try {
        result = await exportStatements({
          client,
          providerId: options.provider,
          accountId: options.account,
          startTime,
          endTime,
          outDir: options.out,
          concurrency,
          signal: controller.signal,
          progress,
        });
      } finally {
        progress.stop();
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
      }
      const { summary, listErrorCause } = result;
      output.data(summary, () => summaryText(summary));
      if (summary.interrupted) {
        output.info("Interrupted: nothing partial was written. Run the same command again to resume.");
        state.exitCode = signalCode ?? ExitCode.Interrupted;
      } else if (listErrorCause !== undefined) {
      // The summary above covers what was listed before the failure.
        output.info("The statement list could not be read to the end:");
        output.error(listErrorCause);
        state.exitCode = exitCodeFor(listErrorCause, state.tokenUrl);
      } else if (summary.failed.length > 0) {
        state.exitCode = ExitCode.Failure;
      }
    });
}

function statementsTable(list: Statement[]): string {
  if (list.length === 0) return "No statements.";
  return table(
    ["statementDate", "status", "description", "statementId"],
    list.map((s) => [displayDate(s.statementDate), s.status, s.description, s.statementId]),
  );
}

export function summaryText(s: ExportSummary): string {
  const byStatus = new Map<string, number>();
  for (const u of s.unavailable) byStatus.set(u.status, (byStatus.get(u.status) ?? 0) + 1);
  const unavailable = s.unavailable.length
    ? `${s.unavailable.length} (${[...byStatus].map(([k, v]) => `${k} ${v}`).join(", ")})`
    : "0";
  const lines = [
    `${s.interrupted ? "Export interrupted" : "Export finished"}: ${s.providerId} / ${s.accountId} -> ${s.outDir}`,
    `  listed           ${s.listed}`,
    `  downloaded       ${s.downloaded} (${formatBytes(s.bytes)})`,
    `  already present  ${s.alreadyPresent}`,
    `  not available    ${unavailable}`,
    ...(s.duplicates ? [`  listed twice     ${s.duplicates}`] : []),
    `  failed           ${s.failed.length}`,
    `  time             ${formatDuration(s.elapsedMs)}`,
  ];
  if (s.unavailable.length) {
    lines.push("", "Not available (skipped):");
    lines.push(indent(table(["statementDate", "status", "statementId"], s.unavailable.map((u) => [displayDate(u.statementDate), u.status, u.statementId]))));
  }
  if (s.failed.length) {
    lines.push("", "Failed:");
    lines.push(
      indent(
        table(
          ["statementDate", "file", "error", "statementId"],
          s.failed.map((f) => [displayDate(f.statementDate), f.file, errorCell(f.error), f.statementId]),
        ),
      ),
    );
  }
  return lines.map(printable).join("\n");
}

function errorCell(e: ExportSummary["failed"][number]["error"]): string {
  const details = [e.status !== undefined ? `HTTP ${e.status}` : "", e.code !== undefined ? `code ${e.code}` : ""].filter(Boolean).join(" ");
  return `${e.message}${details ? ` [${details}]` : ""}${e.debugMessage ? ` (${e.debugMessage})` : ""}`;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}

