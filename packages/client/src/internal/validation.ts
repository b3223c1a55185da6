import * as z from "zod/mini";
import { FdxValidationError, type FdxIssue } from "../core/errors/index.js";
import { NOTIFICATION_CATEGORIES as CATEGORIES, NOTIFICATION_TYPES as TYPES } from "../schemas/subscription.js";

// Input checks run before anything is sent (DESIGN.md §3 "Input checks").
// zod/mini keeps them out of the way of the browser bundle size.

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A path id: non-empty, and never `.` or `..` (URL parsers resolve even `%2E%2E` as a parent segment). */
export function idSchema(maxLength?: number) {
  const base = z.string({ error: "must be a string" }).check(
    z.minLength(1, { error: "must be a non-empty string" }),
    z.refine((v: string) => v !== "." && v !== "..", { error: 'must not be "." or ".."' }),
    // encodeURIComponent throws on a lone surrogate; reject it here as bad input instead.
    z.refine((v: string) => !LONE_SURROGATE.test(v), { error: "must be well-formed Unicode" }),
  );
  return maxLength === undefined ? base : base.check(z.maxLength(maxLength, { error: `must be at most ${maxLength} characters` }));
}

/** `YYYY-MM-DD` naming a real calendar day. */
export function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function isCallbackUrl(value: string, allowInsecure: boolean): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === "https:") return url.hostname !== "";
  return allowInsecure && url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

function callbackUrl(allowInsecure: boolean) {
  const error = allowInsecure
    ? "must be an absolute https: URL, or http: to localhost, 127.0.0.1 or [::1]"
    : "must be an absolute https: URL";
  return z.string({ error: "must be a string" }).check(z.refine((v: string) => isCallbackUrl(v, allowInsecure), { error }));
}

const effectiveDate = z
  .string({ error: "must be a string" })
  .check(z.refine(isCalendarDate, { error: "must be a real calendar date as YYYY-MM-DD" }));
const callbackEmail = z.email({ error: "must be an e-mail address" });

export function subscriptionInputSchema(allowInsecure: boolean) {
  return z.object({
    category: z.enum(CATEGORIES, { error: `must be one of ${CATEGORIES.join(", ")}` }),
    type: z.enum(TYPES, { error: `must be one of ${TYPES.join(", ")}` }),
    callbackUrl: callbackUrl(allowInsecure),
    effectiveDate: z.optional(effectiveDate),
    callbackEmail: z.optional(callbackEmail),
  });
}

export function subscriptionUpdateSchema(allowInsecure: boolean) {
  return z
    .object({
      callbackUrl: z.optional(callbackUrl(allowInsecure)),
      effectiveDate: z.optional(effectiveDate),
      callbackEmail: z.optional(callbackEmail),
    })
    .check(
      z.refine((v) => v.callbackUrl !== undefined || v.effectiveDate !== undefined || v.callbackEmail !== undefined, {
        error: "must set at least one of callbackUrl, effectiveDate, callbackEmail",
      }),
    );
}

/** Parses `value` or throws `FdxValidationError` naming every bad field. `prefix` names the argument in issue paths. */
export function check<T>(schema: z.ZodMiniType<T>, value: unknown, prefix = ""): T {
  const result = z.safeParse(schema, value);
  if (result.success) return result.data;
  throw new FdxValidationError(toIssues(result.error.issues, prefix));
}

export function toIssues(issues: readonly { path: PropertyKey[]; message: string }[], prefix = ""): FdxIssue[] {
  return issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter(Boolean).join("."),
    message: issue.message,
  }));
}

/** Checks several path ids at once so one error lists them all. */
export function checkIds(ids: Record<string, unknown>, maxLengths: Record<string, number> = {}): void {
  const issues: FdxIssue[] = [];
  for (const [name, value] of Object.entries(ids)) {
    const result = z.safeParse(idSchema(maxLengths[name]), value);
    if (!result.success) issues.push(...toIssues(result.error.issues, name));
  }
  if (issues.length) throw new FdxValidationError(issues);
}
