import { FdxError } from "./FdxError.js";
import { formatIssues, type FdxIssue } from "./issues.js";

/** A 2xx response that is not what the service description says (bad JSON; with `validateResponses`, a schema mismatch). */
export class FdxResponseError extends FdxError {
  static override readonly kind: string = "FdxResponseError";
  declare readonly status: number;
  declare readonly issues: FdxIssue[];

  constructor(status: number, issues: FdxIssue[], options?: { cause?: unknown }) {
    super(`Unexpected response (HTTP ${status}): ${formatIssues(issues)}`, options);
    this.status = status;
    this.issues = issues;
  }
}
