import { FdxValidationError, type FdxIssue } from "../core/error.js";
import type { RequestOptions } from "../core/options.js";
import { ACTOR_HEADER, checkActorType } from "./actor.js";
import type { Call, Transport } from "./types.js";

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Platforms refuse CR, LF, NUL and anything beyond Latin-1 — with a TypeError quoting the value, token and all.
const BAD_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** Whether the platform takes `value` as a header value (checked before sending, so no error quotes it). */
export const isHeaderValue = (value: unknown): value is string => typeof value === "string" && !BAD_HEADER_VALUE.test(value);

/**
 * The headers every attempt of a call sends, but `authorization`: lower-case
 * names, so a caller's `accept` replaces ours instead of joining it. Checked
 * once, here: a value the platform refuses would otherwise surface as a
 * TypeError quoting it.
 */
export function buildHeaders(t: Transport, call: Call, options: RequestOptions, interactionId: string | undefined, given: boolean): Record<string, string> {
  const headers: Record<string, string> = { accept: call.accept ?? "application/json" };
  if (call.body) headers["content-type"] = call.body.type;
  const issues: FdxIssue[] = [];
  // The call's actor type (checked on every call, so a bad one is refused wherever it is given) or the
  // client's; sent on product calls only, and before the call's headers, which may name their own.
  const actorType = options.actorType !== undefined ? options.actorType : t.actorType;
  if (checkActorType(actorType, issues) && actorType && call.product) headers[ACTOR_HEADER] = actorType.toUpperCase();
  if (options.providerId !== undefined && (typeof options.providerId !== "string" || options.providerId === ""))
    issues.push({ path: "providerId", message: "must be a non-empty string" });
  const extra = options.headers;
  if (extra) {
    for (const [name, value] of Object.entries(extra)) {
      if (!HEADER_NAME.test(name) || !isHeaderValue(value)) {
        issues.push({ path: `headers.${name}`, message: "is not a valid HTTP header" });
      } else if (name.toLowerCase() !== "authorization") headers[name.toLowerCase()] = value;
    }
  }
  if (interactionId !== undefined) {
    // Only the caller's is checked: a generated UUID always fits.
    if (given && (interactionId === "" || !isHeaderValue(interactionId))) {
      issues.push({ path: "interactionId", message: "must be a non-empty string valid in an HTTP header" });
    } else headers["x-fapi-interaction-id"] = interactionId;
  }
  if (issues.length) throw new FdxValidationError(issues);
  return headers;
}

/** The value of header `name` (lower case) in a caller's headers, whatever the case of its key. */
export function headerValue(headers: Record<string, string> | undefined, name: string): string | undefined {
  // Stryker disable next-line ConditionalExpression: for…in over undefined runs no iteration
  if (headers) for (const key in headers) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}
