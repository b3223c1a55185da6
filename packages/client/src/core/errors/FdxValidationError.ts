import { FdxError } from "./FdxError.js";
import { formatIssues, type FdxIssue } from "./issues.js";

/** Input rejected before anything was sent. */
export class FdxValidationError extends FdxError {
  static override readonly kind: string = "FdxValidationError";
  declare readonly issues: FdxIssue[];

  constructor(issues: FdxIssue[], message = `Invalid input: ${formatIssues(issues)}`) {
    super(message);
    this.issues = issues;
  }
}
