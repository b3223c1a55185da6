import { FdxError } from "./FdxError.js";
import { formatIssues, type FdxIssue } from "./issues.js";

/** A webhook body was rejected (not JSON, or not a notification). */
export class FdxWebhookError extends FdxError {
  static override readonly kind: string = "FdxWebhookError";
  declare readonly issues: FdxIssue[];

  constructor(issues: FdxIssue[], message = `Invalid webhook notification: ${formatIssues(issues)}`) {
    super(message);
    this.issues = issues;
  }
}
