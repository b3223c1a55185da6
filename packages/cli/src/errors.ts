import { FdxAbortError, FdxApiError, FdxConnectionError, FdxError, FdxLinkError, FdxResponseError, FdxValidationError, FdxWebhookError } from "@fdxkit/client";
import { FdxAuthError, FdxReauthorizationRequiredError } from "@fdxkit/client/auth";
import { CommanderError } from "commander";
import { printable } from "./text.js";

/** Process exit codes; the README documents this table. */
export const ExitCode = {
  Ok: 0,
  /** Anything not below: a 500 after retries, an unexpected response, some statements of an export failed. */
  Failure: 1,
  /** Bad flags or input: FdxValidationError, a 400 answer, missing configuration. */
  Usage: 2,
  /** Authentication: 401/403, or the token endpoint refused the client credentials. */
  Auth: 3,
  /** 404: no such subscription, consent, notice, account or statement. */
  NotFound: 4,
  /** 429 rate limited or 503 scheduled maintenance (after the client's retries). */
  Unavailable: 5,
  /** No response: connection refused or reset, DNS, timeout. */
  Network: 6,
  /** Interrupted by Ctrl-C (SIGINT). */
  Interrupted: 130,
  /** Stopped by SIGTERM. */
  Terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** A problem with the command line or the configuration, found before any request. */
export class UsageError extends Error {
  override readonly name: string = "UsageError";
}

/** Input the SDK rejected, told in the command's terms: each issue names the flag (or argument) it came from. */
export class FlagError extends UsageError {
  override readonly name = "FlagError";
  readonly issues: { path: string; message: string }[];

  constructor(issues: { path: string; message: string }[]) {
    super(issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "));
    this.issues = issues;
  }
}

/**
 * The SDK's field names (FdxValidationError issue paths, and the names its
 * messages mention) as the CLI's flags and arguments. One table for every
 * command: the same SDK field is always the same flag.
 */
export const FLAG_FOR_FIELD: Readonly<Record<string, string>> = {
  baseUrl: "--base-url",
  productsUrl: "--products-url",
  timeoutMs: "--timeout",
  maxRetries: "--max-retries",
  callbackUrl: "--callback-url",
  effectiveDate: "--effective-date",
  callbackEmail: "--callback-email",
  category: "--category",
  type: "--type",
  providerId: "--provider",
  accountId: "--account",
  startTime: "--from",
  endTime: "--to",
  limit: "--limit",
  subscriptionId: "<id>",
  consentId: "<id>",
  notificationPayloadId: "<id>",
};

const FIELD_NAMES = new RegExp(`\\b(${Object.keys(FLAG_FOR_FIELD).join("|")})\\b`, "g");

/** An FdxValidationError in terms of the command line: `startTime: …` becomes `--from: …`, `(input): must set at least one of callbackUrl, …` becomes `must set at least one of --callback-url, …`. */
export function toFlagError(error: FdxValidationError): FlagError {
  return new FlagError(
    error.issues.map((issue) => ({
      path: issue.path === "" ? "" : (FLAG_FOR_FIELD[issue.path] ?? issue.path),
      message: issue.message.replace(FIELD_NAMES, (name) => FLAG_FOR_FIELD[name]!),
    })),
  );
}

/** The exit code for an error, given the token URL in use (its refusals are authentication failures). */
export function exitCodeFor(error: unknown, tokenUrl?: string): ExitCode {
  if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
  if (error instanceof UsageError || error instanceof FdxValidationError) return ExitCode.Usage;
  if (error instanceof FdxAbortError) return ExitCode.Interrupted;
  // The IdP refused (a spent grant, bad client credentials), or the user must connect again.
  if (error instanceof FdxAuthError || error instanceof FdxReauthorizationRequiredError)
    return error instanceof FdxAuthError && error.error === "access_denied" ? ExitCode.Failure : ExitCode.Auth;
  if (error instanceof FdxConnectionError) return ExitCode.Network;
  if (error instanceof FdxApiError) {
    if (tokenUrl !== undefined && sameUrl(error.url, tokenUrl)) return ExitCode.Auth;
    if (error.status === 401 || error.status === 403) return ExitCode.Auth;
    if (error.status === 404) return ExitCode.NotFound;
    if (error.status === 429 || error.status === 503) return ExitCode.Unavailable;
    if (error.status === 400) return ExitCode.Usage;
  }
  return ExitCode.Failure;
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}

/** What an error says, as plain data: for `--json` and for the text form. */
export interface ErrorReport {
  error: string;
  message: string;
  status?: number;
  code?: string;
  debugMessage?: string;
  request?: string;
  issues?: { path: string; message: string }[];
  href?: string;
}

export function describeError(error: unknown): ErrorReport {
  if (error instanceof FdxValidationError) {
    // Still named for what it is (scripts may branch on it), but in the command's terms.
    const flags = toFlagError(error);
    return { error: error.name, message: flags.message, issues: flags.issues };
  }
  if (error instanceof FdxApiError) {
    const report: ErrorReport = { error: error.name, message: error.message, status: error.status };
    if (error.code !== undefined) report.code = error.code;
    if (error.debugMessage !== undefined) report.debugMessage = error.debugMessage;
    report.request = `${error.method} ${error.url}`;
    return report;
  }
  if (error instanceof FlagError || error instanceof FdxWebhookError) {
    return { error: error.name, message: error.message, issues: error.issues };
  }
  if (error instanceof FdxResponseError) return { error: error.name, message: error.message, status: error.status, issues: error.issues };
  if (error instanceof FdxLinkError) return { error: error.name, message: error.message, href: error.href };
  if (error instanceof FdxError || error instanceof UsageError) return { error: error.name, message: error.message };
  if (error instanceof Error) return { error: error.name, message: error.message };
  return { error: "Error", message: String(error) };
}

/** The text form: first line `error: …`, then indented details. */
export function formatError(error: unknown): string {
  const report = describeError(error);
  if ((error instanceof FdxValidationError || error instanceof FlagError) && report.issues?.length) {
    return ["error: invalid input", ...report.issues.map((i) => `  ${i.path ? `${i.path}: ` : ""}${printable(i.message)}`)].join("\n");
  }
  const lines: string[] = [];
  const head: string[] = [];
  if (report.status !== undefined) head.push(`HTTP ${report.status}`);
  if (report.code !== undefined) head.push(`FDX code ${report.code}`);
  lines.push(`error: ${printable(report.message)}${head.length ? ` (${printable(head.join(", "))})` : ""}`);
  if (report.debugMessage !== undefined) lines.push(`  debugMessage: ${printable(report.debugMessage)}`);
  if (report.request !== undefined) lines.push(`  request: ${printable(report.request)}`);
  if (report.href !== undefined) lines.push(`  href: ${printable(report.href)}`);
  for (const issue of report.issues ?? []) lines.push(`  ${printable(issue.path || "(response)")}: ${printable(issue.message)}`);
  if (error instanceof FdxConnectionError && error.cause instanceof Error && error.cause.message && !error.message.includes(error.cause.message)) {
    lines.push(`  cause: ${printable(error.cause.message)}`);
  }
  return lines.join("\n");
}
