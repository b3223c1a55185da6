// `fdxkit statements export --connections`: the plan comes from the stored
// end-user connections instead of flags — each connection's accounts, its
// connector as the provider, its own token — and each runs through the same
// export as flags would give (docs/cli.md, "End-user connections").
import type { FdxClient } from "@fdxkit/client";
import { FdxReauthorizationRequiredError, type Connection } from "@fdxkit/client/auth";
import { connectionSummary } from "../commands/connect.js";
import type { ConnectionOptions } from "../connections/manager.js";
import { openManager } from "../connections/manager.js";
import type { OpenStore } from "../connections/store.js";
import type { Context, RunState } from "../context.js";
import { ExitCode, exitCodeFor, UsageError } from "../errors.js";
import type { ExportResult, ExportSummary } from "./export.js";
import type { Progress } from "./progress.js";
import { shardOf, type Shard } from "./shard.js";

interface Plan {
  run: (client: FdxClient, providerId: string, accounts: readonly string[]) => Promise<ExportResult>;
  shard: Shard | undefined;
  signal: AbortSignal;
  progress: Progress;
  /** Called once the store is open: the export's rate budget may live in it. */
  onStore?: (store: OpenStore) => void;
}

/** One connection's part of the run. */
export interface ConnectionExport {
  connection: ReturnType<typeof connectionSummary>;
  /** Why it was not exported: it needs the user's approval again, or it was revoked. */
  skipped: string | null;
  summary: ExportSummary | null;
}

export async function exportConnections(ctx: Context, state: RunState, options: { connection?: string[] }, plan: Plan): Promise<void> {
  const { output } = ctx;
  const manager = await openManager(ctx.options as ConnectionOptions, state.env, output);
  try {
    plan.onStore?.(manager.store);
    const wanted = options.connection;
    const rows: Connection[] = [];
    if (wanted) {
      for (const id of new Set(wanted)) {
        const row = await manager.connections.get(id);
        if (!row) throw new UsageError(`--connection: no connection ${JSON.stringify(id)} in the store (${manager.store.where})`);
        rows.push(row);
      }
    } else {
      for await (const row of manager.connections.list()) rows.push(row);
    }
    if (rows.length === 0) throw new UsageError(`--connections: the store (${manager.store.where}) holds no connection; make one with \`fdxkit connect\``);

    const base = ctx.client();
    const results: ConnectionExport[] = [];
    let exitCode: ExitCode | undefined;
    for (const row of rows) {
      if (plan.signal.aborted) break;
      const done = (skipped: string | null, summary: ExportSummary | null) => results.push({ connection: connectionSummary(row), skipped, summary });
      if (row.status !== "active") {
        plan.progress.note(`${row.id}: ${row.status === "revoked" ? "revoked" : "needs the user's approval again (fdxkit connect)"}, skipped.`);
        done(row.status, null);
        continue;
      }
      const accounts = plan.shard ? row.accounts.filter((id) => shardOf(id, plan.shard!.count) === plan.shard!.index) : row.accounts;
      const token = manager.connections.token(row.id);
      const result = await plan.run(base.withOptions({ token: async (context) => remember(await token(context)) }), row.connector ?? "", accounts);
      if (result.fatal instanceof FdxReauthorizationRequiredError) {
        // The user revoked at the bank, or the grant expired: reported, and no failure of this run.
        plan.progress.note(`${row.id}: needs the user's approval again (fdxkit connect), skipped.`);
        done("reauthorization_required", result.summary);
        continue;
      }
      if (result.fatal !== undefined) throw result.fatal;
      done(null, result.summary);
      const { summary } = result;
      if (summary.interrupted) exitCode = ExitCode.Interrupted;
      else if (result.listErrorCause !== undefined) exitCode ??= exitCodeFor(result.listErrorCause);
      else if (summary.failed.length > 0) exitCode ??= ExitCode.Failure;
    }
    output.data(results, () => connectionsText(results));
    if (exitCode !== undefined) state.exitCode = exitCode;
  } finally {
    await manager.close();
  }

  // Every id token handed out is a secret of this run's output.
  function remember(value: string): string {
    output.addSecrets(value);
    return value;
  }
}

function connectionsText(results: ConnectionExport[]): string {
  const lines: string[] = [];
  for (const { connection: c, skipped, summary } of results) {
    if (skipped) {
      lines.push(`${c.id}: skipped (${skipped === "revoked" ? "revoked" : "needs the user's approval again: fdxkit connect"})`);
      continue;
    }
    const s = summary!;
    const failed = s.failed.length + s.listFailed.length;
    lines.push(
      `${c.id}: ${s.interrupted ? "interrupted" : failed ? "incomplete" : "finished"} — ${s.providerId}, ${s.accounts.length} account(s): ` +
        `${s.downloaded} downloaded, ${s.alreadyPresent} already present, ${s.failed.length} failed${s.listFailed.length ? `, ${s.listFailed.length} list(s) failed` : ""} -> ${s.outDir}`,
    );
  }
  return lines.join("\n");
}
