import * as z from "zod/mini";
import { FdxWebhookError, type FdxIssue } from "../core/error.js";
import { notificationSchema, type Notification } from "../schemas/notification.js";
import { toIssues } from "../schemas/issues.js";
import { readJson } from "./json.js";
import { asNotification, isCustomField } from "./shape.js";

/** Issues an `FdxWebhookError` names at most: enough to fix a sender, and a bound on what a hostile body costs. */
const MAX_ISSUES = 20;

interface ArrayRule {
  path: readonly string[];
  ok: (member: unknown) => boolean;
}

/** The arrays of a notification, the only parts of a body that can be long. Built when needed: only the error path uses them. */
function arrays(): ArrayRule[] {
  return [
    { path: ["notificationPayload", "customFields"], ok: isCustomField },
    { path: ["url", "types"], ok: (member) => typeof member === "string" },
    { path: ["notificationPayload", "url", "types"], ok: (member) => typeof member === "string" },
  ];
}

/**
 * Validates a webhook body and returns it as a typed {@link Notification}.
 *
 * `input` is the raw body (`string`, `Uint8Array`/`Buffer`, `ArrayBuffer`, or another `ArrayBufferView`) as UTF-8
 * JSON, or a value a framework already parsed from JSON. `category`, `type` and `notificationPayload` must be present,
 * and every known member must have the right JSON type; enum values this SDK does not know yet are accepted as
 * strings, and unknown members are kept.
 *
 * The result is a fresh copy with ordinary prototypes and without `__proto__`, `constructor` and `prototype` keys (at
 * any depth), so neither parsing nor a later merge of the result can reach `Object.prototype`.
 *
 * Webhooks are unsigned: treat a notification as a hint and read the details through the API
 * (`client.maintenance.get`, `client.consents.get`).
 *
 * @throws {FdxWebhookError} when the body is not UTF-8 JSON, not an object, or not a notification; `issues` names the
 * first 20 problems (`notificationPayload.id: must be a string`).
 *
 * @example
 * ```ts
 * try {
 *   const notification = parseNotification(await request.text());
 *   console.log(notification.category, notification.type, notification.notificationPayload.id);
 * } catch (error) {
 *   if (error instanceof FdxWebhookError) console.warn(error.issues);
 * }
 * ```
 */
export function parseNotification(input: unknown): Notification {
  const json = readJson(input);
  if (!json.ok) throw new FdxWebhookError([json.issue]);
  // The common case, a valid notification, without zod's cost; zod judges the rest and names the issues.
  const notification = asNotification(json.value);
  if (notification) return notification;
  throw new FdxWebhookError(issuesOf(json.value));
}

/**
 * The first issues of a value that is not a notification. zod sees each long array cut down to its first bad members
 * (indexes mapped back), so a body of a hundred thousand bad fields costs what a valid one does instead of a zod issue
 * per field, which takes hundreds of megabytes and, past some 100 000, overflows the stack in zod's `push(...issues)`.
 */
function issuesOf(value: unknown): FdxIssue[] {
  const indexes = new Map<ArrayRule, number[]>();
  for (const array of arrays()) {
    const parent = at(value, array.path.slice(0, -1));
    const key = array.path[array.path.length - 1]!;
    const members = parent?.[key];
    if (!Array.isArray(members)) continue;
    const bad: number[] = [];
    // Stryker disable next-line EqualityOperator: a 21st bad member is never named: the 20 before it come first and issues are cut at 20.
    for (let i = 0; i < members.length && bad.length < MAX_ISSUES; i++) if (!array.ok(members[i])) bad.push(i);
    // `value` is readJson's fresh copy, and is not returned: it is the caller's to change.
    parent![key] = bad.map((i) => members[i]);
    indexes.set(array, bad);
  }
  const result = z.safeParse(notificationSchema, value);
  // Should zod ever pass what asNotification refused, the body is still refused.
  // Stryker disable next-line all: unreachable while asNotification and the schema agree (held by the tests); no input reaches it.
  if (result.success) return [{ path: "", message: "is not a notification" }];
  const issues = result.error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = [...issue.path];
    for (const [array, bad] of indexes) {
      const n = array.path.length;
      // Stryker disable next-line MethodExpression: `some` matches no other issue: no other path of the schema has an index right after a prefix sharing a part with these.
      if (array.path.every((part, i) => path[i] === part) && typeof path[n] === "number") path[n] = bad[path[n]]!;
    }
    return { path, message: issue.message };
  });
  return toIssues(issues);
}

/** What is at `path` inside `value`. No type checks: in JSON, a key of a primitive or of `null` reads `undefined`. */
function at(value: unknown, path: readonly string[]): Record<string, unknown> | undefined {
  let node = value as Record<string, unknown> | undefined;
  for (const key of path) node = node?.[key] as Record<string, unknown> | undefined;
  return node;
}
