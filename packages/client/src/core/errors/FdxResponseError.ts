import { FdxError } from "./FdxError.js";
import { formatIssues, type FdxIssue } from "./issues.js";

/** A 2xx response that is not what the service description says (bad JSON, too large; with `validateResponses`, a schema mismatch). */
export class FdxResponseError extends FdxError {
  static override readonly kind: string = "FdxResponseError";
  declare readonly status: number;
  declare readonly issues: FdxIssue[];
  /** The `x-fapi-interaction-id` the call sent, if any. */
  declare readonly interactionId: string | undefined;

  constructor(status: number, issues: FdxIssue[], options?: { cause?: unknown; interactionId?: string | undefined }) {
    super(`Unexpected response (HTTP ${status}): ${formatIssues(issues)}`, options);
    this.status = status;
    this.issues = issues;
    this.interactionId = options?.interactionId;
  }
}
