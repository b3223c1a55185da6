import { clip } from "../../internal/text.js";
import { isRecord } from "../../internal/is-record.js";
import { FdxApiError, type FdxApiErrorInit } from "./FdxApiError.js";
import { FdxBadRequestError } from "./FdxBadRequestError.js";
import { FdxInternalServerError } from "./FdxInternalServerError.js";
import { FdxMaintenanceError } from "./FdxMaintenanceError.js";
import { FdxMethodNotAllowedError } from "./FdxMethodNotAllowedError.js";
import { FdxNotFoundError } from "./FdxNotFoundError.js";
import { FdxNotImplementedError } from "./FdxNotImplementedError.js";
import { FdxRateLimitError } from "./FdxRateLimitError.js";
import { FdxUnauthorizedError } from "./FdxUnauthorizedError.js";
import { redactText, redactValue } from "./redact.js";

const BY_STATUS: Record<number, typeof FdxApiError> = {
  400: FdxBadRequestError,
  401: FdxUnauthorizedError,
  404: FdxNotFoundError,
  405: FdxMethodNotAllowedError,
  429: FdxRateLimitError,
  500: FdxInternalServerError,
  501: FdxNotImplementedError,
  503: FdxMaintenanceError,
};

/** The class a status maps to (`FdxApiError` itself for statuses without a subclass). */
export function apiErrorClass(status: number): typeof FdxApiError {
  return BY_STATUS[status] ?? FdxApiError;
}

/** The request a non-2xx answer belongs to. */
export interface FailedRequest {
  method: string;
  url: string;
  /** The `x-fapi-interaction-id` sent, if any. */
  interactionId: string | undefined;
  /** Strings to redact from everything the server sent back (DESIGN.md §3 "Errors"). */
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
 * `message`, `debugMessage`; OAuth token endpoints `error` and
 * `error_description` (RFC 6749 §5.2): both read the same way.
 */
export function toApiError(status: number, statusText: string, headers: Headers, text: string, request: FailedRequest): ApiFailure {
  const { secrets } = request;
  // HTTP/2 (and so most browsers) carries no reason phrase: "HTTP 503" still says what happened.
  const fallback = statusText || `HTTP ${status}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON (empty, text, HTML): `body` is the text.
  }
  const json = isRecord(parsed) ? parsed : undefined;
  // OAuth's `error` is a string; FDX's `code` may be an integer.
  const code = json ? (json.code ?? (typeof json.error === "string" ? json.error : undefined)) : undefined;
  const message = json
    ? nonEmpty(json.message) || nonEmpty(json.error_description) || nonEmpty(json.error) || fallback
    : textMessage(text, headers, fallback);
  const retryAfterMs = parseRetryAfter(headers.get("retry-after"));
  const init: FdxApiErrorInit & { retryAfterMs: number | undefined } = {
    status,
    code: typeof code === "string" ? code : typeof code === "number" ? String(code) : undefined,
    message: redactText(message, secrets),
    debugMessage: typeof json?.debugMessage === "string" ? redactText(json.debugMessage, secrets) : undefined,
    body: redactValue(parsed === undefined ? text : parsed, secrets),
    headers: redactValue(Object.fromEntries(headers), secrets),
    method: request.method,
    url: request.url,
    interactionId: headers.get("x-fapi-interaction-id") ?? request.interactionId,
    // Read by FdxRateLimitError (429) only; the other classes ignore it.
    retryAfterMs,
  };
  return { error: new (apiErrorClass(status))(init), retryAfterMs };
}

const nonEmpty = (value: unknown) => (typeof value === "string" ? value : "");

// Plain text is shown (cut short); markup from a proxy or gateway would only
// bury the status, so an HTML page falls back to the status text.
function textMessage(text: string, headers: Headers, fallback: string): string {
  const trimmed = text.trim();
  const type = headers.get("content-type") ?? "";
  if (!trimmed || /html|xml/i.test(type) || trimmed.startsWith("<")) return fallback;
  return clip(trimmed);
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
