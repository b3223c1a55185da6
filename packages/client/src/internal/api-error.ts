import {
  FdxApiError,
  FdxBadRequestError,
  FdxInternalServerError,
  FdxMaintenanceError,
  FdxMethodNotAllowedError,
  FdxNotFoundError,
  FdxNotImplementedError,
  FdxRateLimitError,
  FdxUnauthorizedError,
  type FdxApiErrorInit,
} from "../core/errors/index.js";
import { isRecord } from "./is-record.js";
import { parseRetryAfter } from "./retry.js";
import { clip } from "./text.js";

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

/** Error bodies are small; a proxy's error page is not worth holding in memory whole. */
const MAX_ERROR_BODY = 64 * 1024;

/** Turns a non-2xx response into the matching `FdxApiError` subclass, reading (and so releasing) its body. */
export async function toApiError(response: Response, method: string, url: string): Promise<FdxApiError> {
  const { status, headers } = response;
  const text = await readCapped(response);
  // HTTP/2 (and so most browsers) carries no reason phrase: "HTTP 503" still says what happened,
  // as the token endpoint's errors do (auth/client-credentials.ts).
  const statusText = response.statusText || `HTTP ${status}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON (empty, text, HTML): `body` is the text.
  }
  const json = isRecord(parsed) ? parsed : undefined;
  const code = json?.code;
  const init: FdxApiErrorInit & { retryAfterMs: number | undefined } = {
    status,
    code: typeof code === "string" ? code : typeof code === "number" ? String(code) : undefined,
    message: json ? (typeof json.message === "string" && json.message) || statusText : textMessage(text, headers, statusText),
    debugMessage: typeof json?.debugMessage === "string" ? json.debugMessage : undefined,
    body: parsed === undefined ? text : parsed,
    headers: Object.fromEntries(headers),
    method,
    url,
    // Read by FdxRateLimitError (429) only; the other classes ignore it.
    retryAfterMs: parseRetryAfter(headers.get("retry-after")),
  };
  return new (apiErrorClass(status))(init);
}

/** The class a status maps to (`FdxApiError` itself for statuses without a subclass). */
export function apiErrorClass(status: number): typeof FdxApiError {
  return BY_STATUS[status] ?? FdxApiError;
}

// Plain text is shown (cut short); markup from a proxy or gateway would only
// bury the status, so an HTML page falls back to the status text.
function textMessage(text: string, headers: Headers, statusText: string): string {
  const trimmed = text.trim();
  const type = headers.get("content-type") ?? "";
  if (!trimmed || /html|xml/i.test(type) || trimmed.startsWith("<")) return statusText;
  return clip(trimmed);
}

async function readCapped(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (let chunk; reader && !(chunk = await reader.read()).done; ) {
      text += decoder.decode(chunk.value, { stream: true });
      if (text.length > MAX_ERROR_BODY) {
        await reader.cancel();
        break;
      }
    }
  } catch {
    // A body cut off mid-error still yields the status-based error.
  }
  return text + decoder.decode();
}
