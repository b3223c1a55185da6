import type { FdxClient, Statement } from "@fdxkit/client";
import type { ErrorReport } from "../errors.js";
import type { Progress } from "./progress.js";
import type { AimdController, RateStats } from "./rate-limit.js";

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

/** One account of the run: its tally and where its files go. */
export interface AccountState {
  summary: AccountSummary;
  dirPath: string;
  /** Resolves once the account's directory exists: made by its first download, so an account with nothing to save leaves no empty directory. */
  ready: Promise<void> | undefined;
}

/** One listed statement, with the account it was listed for. */
export interface Item {
  account: AccountState;
  statement: Statement;
}
