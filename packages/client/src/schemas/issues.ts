import type { FdxIssue } from "../core/error.js";

/** zod issues as `FdxIssue`s: the path dotted (`notificationPayload.id`), the message kept. */
export function toIssues(issues: readonly { path: PropertyKey[]; message: string }[]): FdxIssue[] {
  return issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));
}
