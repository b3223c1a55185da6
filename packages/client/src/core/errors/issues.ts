/** One problem found in an input or a body: `path` is dotted (`callbackUrl`, `notificationPayload.id`), empty for the whole value. */
export interface FdxIssue {
  path: string;
  message: string;
}

export function formatIssues(issues: readonly FdxIssue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
}
