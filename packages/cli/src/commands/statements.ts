import type { FdxClient, Statement } from "@fdxkit/client";
import type { Command } from "commander";
import type { FdxCommand } from "../command.js";
import { integerOption } from "../config.js";
import { contextFor, type RunState } from "../context.js";
import { displayDate, flagRange } from "../dates.js";
import { ExitCode, exitCodeFor, UsageError } from "../errors.js";
import { readAccounts } from "../export/accounts.js";
import { exportConnections } from "../export/connections.js";
import { exportStatements, type ExportResult, type ExportSummary } from "../export/export.js";
import { barProgress, lineProgress, type Progress } from "../export/progress.js";
import type { OpenStore } from "../connections/store.js";
import { checkBudgetFlags, describeLimits, openExportBudget, type ExportBudget } from "../export/rate-budget.js";
import { AimdController } from "../export/rate-limit.js";
import { parseShard, shardOf } from "../export/shard.js";
import { addYears } from "../export/windows.js";
import { formatBytes, formatDuration, stripControls, table } from "../output.js";

interface ListOptions {
  provider: string;
  account: string;
  from?: string;
  to?: string;
  limit?: string;
}

interface ExportCommandOptions {
  provider?: string;
  connections?: boolean;
  connection?: string[];
  account?: string[];
  accountsFile?: string;
  from?: string;
  to?: string;
  out: string;
  concurrency: string;
  shard?: string;
  progress: boolean;
  rateLimit?: string[];
  rateBudget?: string;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function registerStatements(program: FdxCommand, state: RunState): void {
  const statements = program.command("statements").description("account statements: list them, export their PDFs");

  statements
    .command("list")
    .description("list an account's statements, newest first as the provider sends them")
    .needs("--provider <id>", "provider id")
    .needs("--account <id>", "account id")
    .option("--from <date>", "start of the range: YYYY-MM-DD (start of that day, UTC) or an ISO 8601 date-time")
    .option("--to <date>", "end of the range: YYYY-MM-DD (the whole day, UTC) or an ISO 8601 date-time")
    .option("--limit <n>", "list at most n statements (also the page size asked for)")
    .action(async (options: ListOptions, command: Command) => {
      const ctx = contextFor(command, state);
      const limit = integerOption("--limit", options.limit, 1);
      const { start, end } = flagRange(options.from, options.to);
      // Someone waits at the terminal: providers that prioritise by it serve this call as a user's.
      const paginator = ctx.client().statements.list(
        {
          providerId: options.provider,
          accountId: options.account,
          ...(start !== undefined ? { startTime: start } : {}),
          ...(end !== undefined ? { endTime: end } : {}),
          ...(limit !== undefined ? { limit } : {}),
        },
        { actorType: "user" },
      );
      const list = await paginator.toArray(limit !== undefined ? { max: limit } : {});
      ctx.output.data(list, () => statementsTable(list));
    });

  statements
    .command("export")
    .description("download the statement PDFs of one or many accounts into a directory, with a manifest; a rerun resumes where the last one stopped")
    .option("--provider <id>", "provider id (required unless --connections)")
    .option("--account <id>", "an account to export (repeatable)", collect)
    .option("--connections", "export every account of every stored end-user connection, each with its own token (see `fdxkit connect`)")
    .option("--connection <id>", "with --connections: only this connection (repeatable)", collect)
    .option("--accounts-file <file>", "a file of account ids, one per line (blank lines and # comments skipped)")
    .option("--from <date>", "start of the range: YYYY-MM-DD or ISO 8601 (default: two years before --to)")
    .option("--to <date>", "end of the range: YYYY-MM-DD (the whole day) or ISO 8601 (default: now)")
    .needs("--out <dir>", "directory to write to (created if missing): DIR/<account>/<date>_<hash>.pdf and DIR/manifest.jsonl")
    .option("--concurrency <n>", "requests at a time, at most; lowered while the provider rate-limits", "4")
    .option("--shard <I/N>", "export only the accounts of shard I of N (a stable hash of the account id); shards share one --rate-budget")
    .option(
      "--rate-limit <limit>",
      "the provider's request budget: PER_SECOND[/BURST[/RESERVE]] (burst default 2; RESERVE, the part of it left for your app's users, default 0.9 or a fifth of the burst if more) for every provider, or PROVIDER=PER_SECOND[/BURST[/RESERVE]] (repeatable)",
      collect,
    )
    .option(
      "--rate-budget <store>",
      "where that budget is kept: a postgres:// URL (shared by every process using it), a directory (an embedded database) or memory (this process only); with --connections, default the connections store",
    )
    .option("--no-progress", "plain log lines instead of a progress bar, even on a terminal")
    .addHelpText(
      "after",
      `
Long ranges are read in windows of at most one year. Each statement is saved once
and recorded in DIR/manifest.jsonl (accountId, statementId, statementDate, file,
bytes, sha256); a rerun skips what the manifest holds (the file still there with
its size) and removes .part files a killed run left. A 429 pauses every worker
for its Retry-After and halves the concurrency, which climbs back one step at a time;
from then on no more requests start per Retry-After than the provider admitted before it.
With --rate-limit, every request (retries and list pages included) first takes
its turn from the provider's budget, kept in --rate-budget: processes that share
one (the shards of a run, your app's web instances) share the provider's limit,
and the end users' calls go first. Against a provider that allows L requests per
fixed window of W seconds, keep PER_SECOND <= (L - BURST) / W (60 a minute,
burst 2: --rate-limit 0.96; 20 a second: --rate-limit 18). A 429 then pauses
the budget for everyone, and --concurrency stays as given. The export leaves
RESERVE (default 0.9 of a request) for the users' calls, so they seldom wait.
Shard of an account: the first 8 bytes of SHA-256(account id) as an unsigned
big-endian integer, modulo N, plus one.
Exit codes: 0 every statement saved or already there (an account without any
statement, 404 with FDX code 1108, lists as empty: no failure); 1 a statement failed; an
account whose list failed gives that error's code (4 for an unknown account).`,
    )
    .action((options: ExportCommandOptions, command: Command) => runExport(options, command, state));
}

/** `statements export`: every flag checked first, then the run, then its summary and exit code. */
async function runExport(options: ExportCommandOptions, command: Command, state: RunState): Promise<void> {
  const ctx = contextFor(command, state);
  // Every flag is checked before anything is written or sent.
  const concurrency = integerOption("--concurrency", options.concurrency, 1)!;
  if (concurrency > 64) throw new UsageError("--concurrency: must be at most 64");
  const shard = options.shard === undefined ? undefined : parseShard(options.shard);
  const range = flagRange(options.from, options.to);
  const to = range.end ?? new Date();
  const from = range.start ?? addYears(to, -2);
  if (from.getTime() > to.getTime()) {
    throw new UsageError(`--from: must not be after --to (${from.toISOString()} > ${to.toISOString()}; --to defaults to now)`);
  }
  const byConnection = options.connections === true || options.connection !== undefined;
  const budgetFlags = checkBudgetFlags(options.rateLimit, options.rateBudget, byConnection);
  if (byConnection) {
    if (options.provider !== undefined || options.account !== undefined || options.accountsFile !== undefined) {
      throw new UsageError("--connections: the provider and accounts come from each connection; drop --provider, --account and --accounts-file");
    }
  } else if (options.provider === undefined) {
    command.error("error: required option '--provider <id>' not specified", { code: "commander.missingMandatoryOptionValue" });
  }
  const all = byConnection ? [] : await readAccounts(options.account ?? [], options.accountsFile);
  const accounts = shard ? all.filter((id) => shardOf(id, shard.count) === shard.index) : all;
  const output = ctx.output;
  // Resolves the configuration (a usage error when incomplete) before anything is written.
  ctx.config(byConnection ? { auth: false } : undefined);

  const budget =
    budgetFlags && (await openExportBudget(budgetFlags, { addSecrets: (...values) => output.addSecrets(...values), info: (text) => output.info(text) }));
  const stderr = process.stderr;
  const progress = options.progress && stderr.isTTY && !output.json ? await barProgress(output, stderr) : lineProgress(output);
  if (shard) progress.note(`Shard ${shard.index}/${shard.count}: ${accounts.length} of ${all.length} account(s).`);

  // Ctrl-C: cancel the requests in flight (their temporary files are removed), then summarise.
  const controller = new AbortController();
  let signalCode: ExitCode | undefined;
  const rate = new AimdController({
    max: concurrency,
    signal: controller.signal,
    adaptive: budget === undefined,
    onEvent: (event) =>
      progress.note(
        event.kind === "pause"
          ? `Rate limited: every worker pauses ${formatDuration(event.pauseMs)}; concurrency ${event.previousLimit} -> ${event.limit}`
          : event.kind === "pace"
            ? `Pacing requests: at most ${event.requests} per ${event.windowMs} ms (learned from the answers before the 429)`
            : `Concurrency back up to ${event.limit}`,
      ),
  });
  // The client retries the 429s itself; its hooks tell the controller about them (onRetry), what the
  // provider admitted (onResponse), and let it hold every attempt for the pause and the pace (onRequest).
  const client = ctx.client({ onRequest: rate.onRequest, onResponse: rate.onResponse, onRetry: rate.onRetry }, budget?.budget);
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
  const run = (client: FdxClient, providerId: string, accounts: readonly string[]) =>
    exportStatements({
      client,
      providerId,
      accounts,
      from,
      to,
      outDir: options.out,
      rate,
      signal: controller.signal,
      progress,
      redact: (text) => output.redact(text),
    });
  let result: ExportResult;
  try {
    if (byConnection) {
      await exportConnections(ctx, state, options, {
        run,
        shard,
        signal: controller.signal,
        progress,
        onStore: (store) => noteBudget(budget, progress, store),
      });
      return;
    }
    noteBudget(budget, progress);
    result = await run(client, options.provider!, accounts);
  } finally {
    progress.stop();
    await budget?.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  const { summary, listErrorCause, fatal } = result;
  // Refused credentials stop the run: that error is the whole answer (no summary that could pass for a result).
  if (fatal !== undefined) throw fatal;
  const shardText = shard ? `${shard.index}/${shard.count}` : null;
  const rateBudget = budget ? { store: budget.where, limits: budget.limits } : null;
  output.data({ ...summary, shard: shardText, rateBudget }, () => summaryText(summary, shardText));
  if (summary.interrupted) {
    output.info("Interrupted: nothing partial was written. Run the same command again to resume.");
    state.exitCode = signalCode ?? ExitCode.Interrupted;
  } else if (listErrorCause !== undefined) {
    state.exitCode = exitCodeFor(listErrorCause, state.tokenUrl);
  } else if (summary.failed.length > 0) {
    state.exitCode = ExitCode.Failure;
  }
}

/** Says which budget the run takes from; under `--connections` without `--rate-budget`, connects it to the store first. */
function noteBudget(budget: ExportBudget | undefined, progress: Progress, store?: OpenStore): void {
  if (!budget) return;
  if (store && budget.useStore) budget.useStore(store.db, store.where);
  progress.note(`Rate budget: ${describeLimits(budget.limits)}, kept in ${budget.where}.`);
}

function statementsTable(list: Statement[]): string {
  if (list.length === 0) return "No statements.";
  return table(
    ["statementDate", "status", "description", "statementId"],
    list.map((s) => [displayDate(s.statementDate), s.status, s.description, s.statementId]),
  );
}

/** The first line of the text summary: "finished" only when nothing failed. */
function headline(s: ExportSummary): string {
  if (s.interrupted) return "Export interrupted";
  const problems = [
    s.failed.length ? `${s.failed.length} statement(s) failed` : "",
    s.listFailed.length ? `the statement list of ${s.listFailed.length} account(s) could not be read` : "",
  ].filter(Boolean);
  return problems.length ? `Export incomplete: ${problems.join("; ")}` : "Export finished";
}

export function summaryText(s: ExportSummary, shard: string | null = null): string {
  const byStatus = new Map<string, number>();
  for (const u of s.unavailable) byStatus.set(u.status, (byStatus.get(u.status) ?? 0) + 1);
  const unavailable = s.unavailable.length ? `${s.unavailable.length} (${[...byStatus].map(([k, v]) => `${k} ${v}`).join(", ")})` : "0";
  const r = s.rateLimit;
  const lines = [
    `${headline(s)}: ${s.providerId}, ${s.accounts.length} account(s) -> ${s.outDir}`,
    `  range            ${s.from} .. ${s.to} (${s.windows.length} window(s) per account)`,
    ...(shard ? [`  shard            ${shard}`] : []),
    `  listed           ${s.listed}`,
    `  downloaded       ${s.downloaded} (${formatBytes(s.bytes)})`,
    `  already present  ${s.alreadyPresent}`,
    `  not available    ${unavailable}`,
    ...(s.noStatements.length ? [`  no statements    ${s.noStatements.length} account(s)`] : []),
    `  failed           ${s.failed.length}`,
    ...(s.listFailed.length ? [`  list failed      ${s.listFailed.length} account(s)`] : []),
    ...(r.rateLimited
      ? [
          `  rate limited     ${r.rateLimited} answer(s) 429, ${r.pauses} pause(s), concurrency down to ${r.minLimit}${r.pace !== null ? `, paced at ${r.pace.requests} per ${r.pace.windowMs} ms` : ""}`,
        ]
      : []),
    ...(s.removedPartFiles ? [`  .part removed    ${s.removedPartFiles}`] : []),
    `  time             ${formatDuration(s.elapsedMs)}`,
  ];
  if (s.accounts.length > 1 || s.noStatements.length || s.listFailed.length) {
    lines.push("", "Accounts:");
    lines.push(
      indent(
        table(
          ["accountId", "listed", "saved", "present", "failed", "directory", "note"],
          s.accounts.map((a) => [
            a.accountId,
            a.listed,
            a.downloaded,
            a.alreadyPresent,
            a.failed,
            a.dir,
            a.listError ? `list failed: ${errorCell(a.listError)}` : a.noStatements ? "no statements" : "",
          ]),
        ),
      ),
    );
  }
  if (s.unavailable.length) {
    lines.push("", "Not available (skipped):");
    lines.push(
      indent(
        table(
          ["accountId", "statementDate", "status", "statementId"],
          s.unavailable.map((u) => [u.accountId, displayDate(u.statementDate), u.status, u.statementId]),
        ),
      ),
    );
  }
  if (s.failed.length) {
    lines.push("", "Failed:");
    lines.push(
      indent(
        table(
          ["accountId", "statementDate", "file", "error", "statementId"],
          s.failed.map((f) => [f.accountId, displayDate(f.statementDate), f.file, errorCell(f.error), f.statementId]),
        ),
      ),
    );
  }
  return lines.map(stripControls).join("\n");
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
