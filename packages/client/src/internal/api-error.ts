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
import { parseRetryAfter } from "./retry.js";

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

const MAX_TEXT_MESSAGE = 200;
/** Error bodies are small; a proxy's error page is not worth holding in memory whole. */
const MAX_ERROR_BODY = 64 * 1024;

/** Turns a non-2xx response into the matching `FdxApiError` subclass, reading (and so releasing) its body. */
export async function toApiError(response: Response, method: string, url: string): Promise<FdxApiError> {
  const text = await readCapped(response);
  const headers = Object.fromEntries(response.headers);
  // HTTP/2 (and so most browsers) carries no reason phrase: "HTTP 503" still says what happened,
  // as the token endpoint's errors do (auth/client-credentials.ts).
  const statusText = response.statusText || `HTTP ${response.status}`;
  const base = { status: response.status, headers, method, url };

  let init: FdxApiErrorInit;
  const parsed = parseJson(text);
  const json = isRecord(parsed) ? parsed : undefined;
  if (json) {
    const code = json.code;
    init = {
      ...base,
      code: typeof code === "string" ? code : typeof code === "number" ? String(code) : undefined,
      message: typeof json.message === "string" && json.message ? json.message : statusText,
      debugMessage: typeof json.debugMessage === "string" ? json.debugMessage : undefined,
      body: json,
    };
  } else {
    const body = parsed === undefined ? text : parsed;
    init = { ...base, code: undefined, message: textMessage(text, response, statusText), debugMessage: undefined, body };
  }

  if (response.status === 429) {
    return new FdxRateLimitError({ ...init, retryAfterMs: parseRetryAfter(response.headers.get("retry-after")) });
  }
  const ErrorClass = apiErrorClass(response.status);
  return new ErrorClass(init);
}

/** The class a status maps to (`FdxApiError` itself for statuses without a subclass). */
export function apiErrorClass(status: number): typeof FdxApiError {
  return BY_STATUS[status] ?? FdxApiError;
}

function parseJson(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Plain text is shown (cut short); markup from a proxy or gateway would only
// bury the status, so an HTML page falls back to the status text.
function textMessage(text: string, response: Response, statusText: string): string {
  const trimmed = text.trim();
  const type = response.headers.get("content-type") ?? "";
  if (!trimmed || /html|xml/i.test(type) || trimmed.startsWith("<")) return statusText;
  return trimmed.length > MAX_TEXT_MESSAGE ? `${trimmed.slice(0, MAX_TEXT_MESSAGE)}…` : trimmed;
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
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
