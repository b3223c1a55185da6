import { FdxValidationError, type FdxIssue } from "../core/error.js";
import type { SubscriptionInput, SubscriptionUpdate } from "../models.js";
import { isLoopbackHost } from "./checks.js";
import { isRecord } from "./is-record.js";
import { NOTIFICATION_CATEGORIES as CATEGORIES, NOTIFICATION_TYPES as TYPES } from "../schemas/enums.js";

// Input checks run before anything is sent, so bad input costs no request.
// They are plain predicates rather than zod schemas: arguments are flat
// strings and numbers, and zod's runtime would more than double the main
// entry's size for them. zod guards the structured, untrusted data: webhook
// bodies and (opt-in) responses.

/** Returns why `value` is unacceptable, or undefined when it is fine. */
export type Check = (value: unknown) => string | undefined;

// The address form zod's `email()` accepts (no quoted local parts, no IP literals), written
// shorter: \w is [A-Za-z0-9_], and without the u flag, i folds no other letter into a-z.
const EMAIL = /^(?!\.)(?!.*\.\.)[\w'+.-]*[\w+-]@([a-z\d][a-z\d-]*\.)+[a-z]{2,}$/i;

const string =
  (rule: (v: string) => string | undefined): Check =>
  (v) =>
    typeof v === "string" ? rule(v) : "must be a string";

/** A path id: non-empty, and never `.` or `..` (URL parsers resolve even `%2E%2E` as a parent segment). */
export function idCheck(maxLength?: number): Check {
  return string((v) => {
    if (v === "") return "must be a non-empty string";
    if (v === "." || v === "..") return 'must not be "." or ".."';
    // encodeURIComponent (which builds the path) throws on a lone surrogate: ask it here, and report bad input instead.
    try {
      encodeURIComponent(v);
    } catch {
      return "must be well-formed Unicode";
    }
    // Stryker disable next-line ConditionalExpression: no length is greater than undefined
    if (maxLength !== undefined && v.length > maxLength) return `must be at most ${maxLength} characters`;
    return undefined;
  });
}

/**
 * `YYYY-MM-DD` naming a real calendar day. Date rolls "2025-02-30" over to
 * March 2 (or refuses it): a real day is one that reads back unchanged.
 * Years before 0100 are refused, as they always were here.
 */
export function isCalendarDate(value: string): boolean {
  const time = Date.parse(value);
  // Stryker disable next-line Regex: without the ^, text before the date never survives the round trip through toISOString
  return /^(?!00)\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(time) && new Date(time).toISOString().startsWith(value);
}

export function isCallbackUrl(value: string, allowInsecure: boolean): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  // The URL parser gives every https: URL a host, or throws.
  if (url.protocol === "https:") return true;
  return allowInsecure && url.protocol === "http:" && isLoopbackHost(url.hostname);
}

const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    // Stryker disable next-line ConditionalExpression: the values are strings, so includes already refuses anything else
    typeof v === "string" && values.includes(v) ? undefined : `must be one of ${values.join(", ")}`;

function callbackUrl(allowInsecure: boolean): Check {
  const message = allowInsecure
    ? "must be an absolute https: URL, or http: to a loopback host (localhost, 127.0.0.0/8, [::1])"
    : "must be an absolute https: URL";
  return string((v) => (isCallbackUrl(v, allowInsecure) ? undefined : message));
}

const effectiveDate = string((v) => (isCalendarDate(v) ? undefined : "must be a real date (YYYY-MM-DD)"));
const callbackEmail = string((v) => (EMAIL.test(v) ? undefined : "must be an e-mail address"));

/** Field name → its check; a name ending in `?` is optional (absent or undefined passes). */
export type Fields = Record<string, Check>;

/**
 * Checks an object's fields and returns a copy holding only the declared,
 * present ones (unknown keys are not sent), or the issues found.
 */
export function checkFields(value: unknown, fields: Fields): { data: Record<string, unknown>; issues: FdxIssue[] } {
  const data: Record<string, unknown> = {};
  if (!isRecord(value)) return { data, issues: [{ path: "", message: "must be an object" }] };
  const issues: FdxIssue[] = [];
  for (const [key, check] of Object.entries(fields)) {
    // Stryker disable next-line Regex: a field's key holds a "?" only at its end
    const name = key.replace(/\?$/, "");
    const field = value[name];
    // Absent: an issue when required (no `?`), nothing when optional.
    const message = field === undefined ? (name === key ? "is required" : undefined) : check(field);
    if (message) issues.push({ path: name, message });
    else if (field !== undefined) data[name] = field;
  }
  return { data, issues };
}

function orThrow<T>({ data, issues }: { data: Record<string, unknown>; issues: FdxIssue[] }): T {
  if (issues.length) throw new FdxValidationError(issues);
  return data as T;
}

/** Checks `subscriptions.create` input; returns the body to send. */
export function subscriptionInputCheck(allowInsecure: boolean): (input: unknown) => SubscriptionInput {
  const fields: Fields = {
    category: oneOf(CATEGORIES),
    type: oneOf(TYPES),
    callbackUrl: callbackUrl(allowInsecure),
    "effectiveDate?": effectiveDate,
    "callbackEmail?": callbackEmail,
  };
  return (input) => orThrow(checkFields(input, fields));
}

/** Checks `subscriptions.update` input (at least one field); returns the body to send. */
export function subscriptionUpdateCheck(allowInsecure: boolean): (patch: unknown) => SubscriptionUpdate {
  const fields: Fields = { "callbackUrl?": callbackUrl(allowInsecure), "effectiveDate?": effectiveDate, "callbackEmail?": callbackEmail };
  return (patch) => {
    const result = checkFields(patch, fields);
    if (!result.issues.length && Object.keys(result.data).length === 0) {
      result.issues.push({ path: "", message: "must set at least one of callbackUrl, effectiveDate, callbackEmail" });
    }
    return orThrow(result);
  };
}

/** Checks several path ids at once so one error lists them all; `maxLength` applies to each. */
export function checkIds(ids: Record<string, unknown>, maxLength?: number): void {
  // Stryker disable next-line ConditionalExpression: idCheck(undefined) is the same check; the shared one only saves making it
  const check = maxLength === undefined ? anyLengthId : idCheck(maxLength);
  let issues: FdxIssue[] | undefined;
  for (const path in ids) {
    const message = check(ids[path]);
    if (message) (issues ??= []).push({ path, message });
  }
  if (issues) throw new FdxValidationError(issues);
}

const anyLengthId = idCheck();
