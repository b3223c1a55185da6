// The errors, in one home: every class fdxkit throws, the
// FDX error codes, and the mapping of a non-2xx answer to its class.
// Redaction, which every field of these errors passes through, is in
// redact.ts beside this file.
import { isRecord } from "../internal/is-record.js";
import { clip, redactText, redactValue } from "./redact.js";

const BRAND = Symbol.for("fdxkit.error.kinds");

/**
 * Base class of every error fdxkit throws.
 *
 * `instanceof` works across copies of the package (the ESM and the CJS build
 * loaded side by side, or two versions in one app): each instance carries the
 * kinds of its class chain under a `Symbol.for` key, and `instanceof` checks
 * that brand as well as the prototype chain.
 */
export class FdxError extends Error {
  /** Stable kind used by the cross-realm `instanceof` check. */
  static readonly kind: string = "FdxError";
  /** What failed, for an `FdxError` that is not of a subclass: `hook_failed`, `token_failed`, `schema_load_failed`. */
  declare readonly code?: string | undefined;

  constructor(message: string, options?: { cause?: unknown; code?: FdxFailureCode | undefined }) {
    // No `cause` property at all when there is none (options with `cause: undefined` would create one).
    super(message, options?.cause === undefined ? undefined : options);
    this.name = new.target.kind;
    // Only set when given, so the errors of the subclasses show no empty field.
    if (options?.code) this.code = options.code;
    // Only a class's own `kind` counts: a subclass without one must not claim its parent's twice.
    const kinds: string[] = [];
    // Stryker disable next-line ConditionalExpression: every class in the chain is a function, and past Error come only Function.prototype and Object.prototype, which have no own kind
    for (let c: unknown = new.target; typeof c === "function" && c !== Error; c = Object.getPrototypeOf(c)) {
      if (Object.hasOwn(c, "kind")) kinds.push((c as typeof FdxError).kind);
    }
    Object.defineProperty(this, BRAND, { value: kinds });
  }

  /** `instanceof` by prototype chain, or by the brand an instance from another copy of the package carries. */
  static override [Symbol.hasInstance](instance: unknown): boolean {
    // The prototype check answers false for primitives; `?.` keeps null and undefined from throwing.
    const kinds = (instance as Record<symbol, unknown> | null | undefined)?.[BRAND];
    // biome-ignore-start lint/complexity/noThisInStatic: `this` is the class `instanceof` was asked about, a subclass included
    return (
      Function.prototype[Symbol.hasInstance].call(this, instance) ||
      (Object.hasOwn(this, "kind") && Array.isArray(kinds) && kinds.includes((this as { kind: string }).kind))
    );
    // biome-ignore-end lint/complexity/noThisInStatic: the range above
  }

  /** Type guard equivalent of `instanceof`, for code that prefers a function. */
  static is<T extends abstract new (...args: never[]) => FdxError>(this: T, value: unknown): value is InstanceType<T> {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class `is` was called on, so `FdxAuthError.is` checks for FdxAuthError
    return value instanceof this;
  }

  /** `name`, `message` and the error's own fields (not `cause`), for logs and `JSON.stringify`. */
  toJSON(): Record<string, unknown> {
    const { cause: _cause, ...fields } = this as Record<string, unknown>;
    return { name: this.name, message: this.message, ...fields };
  }
}

/** One problem found in an input or a body: `path` is dotted (`callbackUrl`, `notificationPayload.id`), empty for the whole value. */
export interface FdxIssue {
  path: string;
  message: string;
}

export function formatIssues(issues: readonly FdxIssue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
}

/** What an {@link FdxApiError} is built from: the failed request and the service's error response. */
export interface FdxApiErrorInit {
  status: number;
  statusText?: string;
  code: string | undefined;
  message: string;
  debugMessage: string | undefined;
  body: unknown;
  headers: Record<string, string>;
  method: string;
  url: string;
  /** The response's `x-fapi-interaction-id`, else the id sent. */
  interactionId?: string | undefined;
}

/**
 * The server answered with a non-2xx status. Subclasses by status let callers
 * catch one case (`FdxRateLimitError`); `code` carries the FDX error code as a
 * string (`"1205"`, `"503"`, `"NotFound"`) whatever type the body used.
 */
export class FdxApiError extends FdxError {
  static override readonly kind: string = "FdxApiError";
  // Fields of the error classes are `declare`d: each constructor sets them (in the order toJSON shows),
  // so a class field definition would only repeat every name in every bundle.
  declare readonly status: number;
  /** FDX error code, integer codes normalised to strings (`401` → `"401"`); a provider may send codes of its own. */
  declare readonly code: FdxErrorCode | (string & {}) | undefined;
  /** Developer diagnostic from the server. Never branch on it: its text may change at any time. */
  declare readonly debugMessage: string | undefined;
  /** Parsed JSON body, or the body text when it was not JSON. */
  declare readonly body: unknown;
  declare readonly headers: Record<string, string>;
  declare readonly method: string;
  /** Absolute URL of the request. */
  declare readonly url: string;
  /** The response's `x-fapi-interaction-id` header, else the id the call sent: quote it to the provider's support. */
  declare readonly interactionId: string | undefined;

  constructor(init: FdxApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.debugMessage = init.debugMessage;
    this.body = init.body;
    this.headers = init.headers;
    this.method = init.method;
    this.url = init.url;
    this.interactionId = init.interactionId;
  }
}

// The classes by status differ only in their kind (the name they report, and what `instanceof` checks across
// copies of the package), which the table of statuses after them gives each one.

/** HTTP 400: the server rejected the input (FDX code 401 "Invalid Input"). */
export class FdxBadRequestError extends FdxApiError {}

/** HTTP 401: missing or unauthorized token (FDX code 1205). */
export class FdxUnauthorizedError extends FdxApiError {}

/** HTTP 404: the resource does not exist (FDX code NotFound, 1104, 1108, ...). */
export class FdxNotFoundError extends FdxApiError {}

/** HTTP 405: method not allowed (FDX code 1206). */
export class FdxMethodNotAllowedError extends FdxApiError {}

/** HTTP 429: too many requests (FDX code 1207). Retried automatically. */
export class FdxRateLimitError extends FdxApiError {
  /** The server's `Retry-After`, in milliseconds, when it sent one. */
  declare readonly retryAfterMs: number | undefined;

  constructor(init: FdxApiErrorInit & { retryAfterMs?: number | undefined }) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** HTTP 500: the server could not process the request (FDX code 500). */
export class FdxInternalServerError extends FdxApiError {}

/** HTTP 501: version not supported or not implemented (FDX code 1106). */
export class FdxNotImplementedError extends FdxApiError {}

/** HTTP 503: scheduled maintenance (FDX code 503). Retried automatically. */
export class FdxMaintenanceError extends FdxApiError {}

/** No response arrived: connection refused or reset, DNS failure, CORS refusal. `cause` holds the platform error. */
export class FdxConnectionError extends FdxError {
  static override readonly kind: string = "FdxConnectionError";
  declare readonly cause: unknown;
  /** The `x-fapi-interaction-id` the call sent, if any. */
  declare readonly interactionId: string | undefined;

  constructor(message: string, options?: { cause?: unknown; interactionId?: string | undefined }) {
    super(message, options);
    this.interactionId = options?.interactionId;
  }
}

/** An attempt timed out: no answer within `timeoutMs` (a JSON call's body included), or a download's body stalled that long. */
export class FdxTimeoutError extends FdxConnectionError {
  static override readonly kind: string = "FdxTimeoutError";
}

/** The caller's `AbortSignal` fired. `name` is `"AbortError"`, as platform aborts are. */
export class FdxAbortError extends FdxError {
  static override readonly kind: string = "FdxAbortError";

  constructor(message = "The request was aborted", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AbortError";
  }
}

/** Input rejected before anything was sent. */
export class FdxValidationError extends FdxError {
  static override readonly kind: string = "FdxValidationError";
  declare readonly issues: FdxIssue[];

  constructor(issues: FdxIssue[], message = `Invalid input: ${formatIssues(issues)}`) {
    super(message);
    this.issues = issues;
  }
}

/**
 * A 2xx response that is not what the service description says: bad JSON, a
 * value of the wrong kind (a string where an object is due), a body past
 * `maxResponseBytes` or a document past `maxDownloadBytes`; with
 * `validateResponses`, a schema mismatch.
 */
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

/** A link returned by the server that must not be followed (foreign origin, non-http(s) scheme, loop). Nothing was sent. */
export class FdxLinkError extends FdxError {
  static override readonly kind: string = "FdxLinkError";
  declare readonly href: string;

  constructor(message: string, href: string) {
    super(message);
    this.href = href;
  }
}

/** A webhook body was rejected (not JSON, or not a notification). */
export class FdxWebhookError extends FdxError {
  static override readonly kind: string = "FdxWebhookError";
  declare readonly issues: FdxIssue[];

  constructor(issues: FdxIssue[], message = `Invalid webhook notification: ${formatIssues(issues)}`) {
    super(message);
    this.issues = issues;
  }
}

/** The FDX error codes the service answers with, as the strings `FdxApiError.code` holds. */
export const FdxErrorCode = {
  InvalidInput: "401",
  Unauthorized: "1205",
  MethodNotAllowed: "1206",
  TooManyRequests: "1207",
  InternalServerError: "500",
  VersionNotSupported: "1106",
  ScheduledMaintenance: "503",
  NotFound: "NotFound",
  /** An end user's token expired or was revoked (their consent ended): refresh it, or ask them to connect again. */
  CustomerNotAuthorized: "602",
} as const;

export type FdxErrorCode = (typeof FdxErrorCode)[keyof typeof FdxErrorCode];

/** The `code` of a bare `FdxError`: a hook threw, the token function failed, or the response schemas did not load. */
export type FdxFailureCode = "hook_failed" | "token_failed" | "schema_load_failed";

// A kind must be a class's own: a minifier renames classes, so the name cannot be read back at run time. Set here,
// the kinds keep the status classes even in a bundle that maps no status: the price of one table of statuses,
// classes and names instead of a copy of the same class per status.
const BY_STATUS: Record<number, typeof FdxApiError> = {};
for (const [status, error, kind] of [
  [400, FdxBadRequestError, "FdxBadRequestError"],
  [401, FdxUnauthorizedError, "FdxUnauthorizedError"],
  [404, FdxNotFoundError, "FdxNotFoundError"],
  [405, FdxMethodNotAllowedError, "FdxMethodNotAllowedError"],
  [429, FdxRateLimitError, "FdxRateLimitError"],
  [500, FdxInternalServerError, "FdxInternalServerError"],
  [501, FdxNotImplementedError, "FdxNotImplementedError"],
  [503, FdxMaintenanceError, "FdxMaintenanceError"],
] as const) {
  (error as { kind: string }).kind = kind;
  BY_STATUS[status] = error;
}

/** The request a non-2xx answer belongs to. */
export interface FailedRequest {
  method: string;
  url: string;
  /** The `x-fapi-interaction-id` sent, if any. */
  interactionId: string | undefined;
  /** Strings to redact from everything the server sent back: no error may carry a secret the call sent. */
  secrets: readonly string[];
}

/** A non-2xx answer as an error, with its `Retry-After` read once for the retry loop. */
export interface ApiFailure {
  error: FdxApiError;
  retryAfterMs: number | undefined;
}

/**
 * Maps a non-2xx answer (status, headers and the body text read so far) to
 * the `FdxApiError` subclass of its status. FDX bodies carry `code`,
 * `message` and `debugMessage`.
 */
export function toApiError(status: number, statusText: string, headers: Headers, text: string, request: FailedRequest): ApiFailure {
  const { secrets } = request;
  // The one redaction step, over the whole text before anything reads or cuts it.
  const clean = redactText(text, secrets);
  // HTTP/2 (and so most browsers) carries no reason phrase: "HTTP 503" still says what happened.
  const fallback = statusText || `HTTP ${status}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(clean);
  } catch {
    // Not JSON (empty, text, HTML): `body` is the text.
  }
  const json = isRecord(parsed) ? parsed : undefined;
  // FDX's `code` may be an integer.
  const code = json?.code;
  const message = json ? nonEmpty(json.message) || fallback : textMessage(clean, headers, fallback, secrets);
  const retryAfterMs = parseRetryAfter(headers.get("retry-after"));
  const init: FdxApiErrorInit & { retryAfterMs: number | undefined } = {
    status,
    code: typeof code === "string" ? code : typeof code === "number" ? String(code) : undefined,
    // Parsed JSON is walked again: a string may have spelled the secret with \u escapes.
    message: redactText(message, secrets),
    debugMessage: typeof json?.debugMessage === "string" ? redactText(json.debugMessage, secrets) : undefined,
    body: redactValue(parsed === undefined ? clean : parsed, secrets),
    headers: redactValue(Object.fromEntries(headers), secrets),
    method: request.method,
    url: redactText(request.url, secrets),
    interactionId: headers.get("x-fapi-interaction-id") ?? request.interactionId,
    // Read by FdxRateLimitError (429) only; the other classes ignore it.
    retryAfterMs,
  };
  // The class of the status (`FdxApiError` itself for statuses without a subclass).
  return { error: new (BY_STATUS[status] ?? FdxApiError)(init), retryAfterMs };
}

const nonEmpty = (value: unknown) => (typeof value === "string" ? value : "");

// Plain text is shown (cut short); markup from a proxy or gateway would only
// bury the status, so an HTML page falls back to the status text.
function textMessage(text: string, headers: Headers, fallback: string, secrets: readonly string[]): string {
  const trimmed = text.trim();
  // Stryker disable next-line StringLiteral: no other text says html or xml either
  const type = headers.get("content-type") ?? "";
  if (!trimmed || /html|xml/i.test(type) || trimmed.startsWith("<")) return fallback;
  return clip(trimmed, secrets);
}

/** `Retry-After` as delta-seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // An HTTP date names a day and a zone; without a letter, Date.parse would take "-5" as a year.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
