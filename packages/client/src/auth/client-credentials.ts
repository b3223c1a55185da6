import { settleOnAbort } from "../internal/fetch-once.js";
import {
  FdxApiError,
  FdxConnectionError,
  FdxResponseError,
  FdxTimeoutError,
  FdxValidationError,
  type FdxIssue,
} from "../core/errors/index.js";
import type { FetchLike } from "../core/options.js";
import { apiErrorClass } from "../internal/api-error.js";
import { isRecord } from "../internal/is-record.js";
import { parseRetryAfter } from "../internal/retry.js";

/** Options of {@link clientCredentials}. */
export interface ClientCredentialsOptions {
  /** The authorization server's token endpoint (absolute http(s) URL). */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Scope(s) to request; an array is sent space-separated. Omitted: no `scope` parameter. */
  scope?: string | readonly string[];
  /** Custom fetch. Default: `globalThis.fetch`, looked up at call time. */
  fetch?: FetchLike | typeof globalThis.fetch;
  /** Timeout of the whole token request (it is small). Default 30 000 ms. */
  timeoutMs?: number;
}

/** Refresh this long before `expires_in` runs out, or 10 % of the lifetime for short-lived tokens. */
const REFRESH_MARGIN_MS = 30_000;
/** `expires_in` is only RECOMMENDED (RFC 6749 §5.1); without it a token is reused this long. */
const DEFAULT_LIFETIME_MS = 300_000;

/**
 * A token function for the OAuth 2.0 client-credentials grant (RFC 6749 §4.4),
 * to pass as `createClient({ token })`.
 *
 * It POSTs `grant_type=client_credentials&scope=…` to `tokenUrl` with HTTP
 * Basic client authentication, caches the access token until shortly before
 * `expires_in` (30 s early, or 10 % of the lifetime if that is shorter), and
 * makes concurrent callers share one token request. A failed token request
 * rejects with `FdxApiError` (the OAuth `error` as `code`, `error_description`
 * as `message`), `FdxConnectionError`/`FdxTimeoutError`, or
 * `FdxResponseError` for a 2xx without an `access_token`; none of them holds
 * the client secret.
 *
 * @example
 * const client = createClient({
 *   baseUrl: "https://api.example.com",
 *   token: clientCredentials({ tokenUrl: "https://auth.example.com/token", clientId, clientSecret, scope: "notifications consents" }),
 * });
 */
export function clientCredentials(options: ClientCredentialsOptions): () => Promise<string> {
  const config = checkOptions(options);
  let cached: { token: string; refreshAt: number } | undefined;
  let pending: Promise<string> | undefined;

  return () => {
    if (cached && Date.now() < cached.refreshAt) return Promise.resolve(cached.token);
    if (!pending) {
      pending = requestToken(config)
        .then(({ token, lifetimeMs }) => {
          const margin = Math.min(REFRESH_MARGIN_MS, lifetimeMs / 10);
          cached = { token, refreshAt: Date.now() + lifetimeMs - margin };
          return token;
        })
        .finally(() => {
          pending = undefined;
        });
    }
    return pending;
  };
}

interface TokenConfig {
  tokenUrl: string;
  basic: string;
  body: string;
  fetch: FetchLike | typeof globalThis.fetch | undefined;
  timeoutMs: number;
  /** Strings that must never reach an error: the secret and its encodings. */
  secrets: string[];
}

function checkOptions(options: ClientCredentialsOptions): TokenConfig {
  const issues: FdxIssue[] = [];
  let tokenUrl = "";
  try {
    const url = new URL(options.tokenUrl);
    if (url.protocol === "https:" || url.protocol === "http:") tokenUrl = url.href;
  } catch {
    // reported below
  }
  if (!tokenUrl) issues.push({ path: "tokenUrl", message: "must be an absolute http(s) URL" });
  for (const key of ["clientId", "clientSecret"] as const) {
    if (typeof options[key] !== "string" || options[key] === "") issues.push({ path: key, message: "must be a non-empty string" });
  }
  const scope =
    typeof options.scope === "string"
      ? options.scope
      : Array.isArray(options.scope) && options.scope.every((s) => typeof s === "string")
        ? options.scope.join(" ")
        : undefined;
  if (options.scope !== undefined && typeof scope !== "string") issues.push({ path: "scope", message: "must be a string or an array of strings" });
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (!(Number.isInteger(timeoutMs) && timeoutMs >= 0)) issues.push({ path: "timeoutMs", message: "must be an integer >= 0" });
  if (issues.length) throw new FdxValidationError(issues);

  // RFC 6749 §2.3.1: form-urlencode id and secret, then base64 "id:secret".
  const encodedSecret = formEncode(options.clientSecret);
  const basic = btoa(`${formEncode(options.clientId)}:${encodedSecret}`);
  const body = new URLSearchParams({ grant_type: "client_credentials" });
  if (scope) body.set("scope", scope);
  return {
    tokenUrl,
    basic,
    body: body.toString(),
    fetch: options.fetch,
    timeoutMs,
    secrets: [options.clientSecret, encodedSecret, encodeURIComponent(options.clientSecret), basic],
  };
}

function formEncode(value: string): string {
  return new URLSearchParams([["", value]]).toString().slice(1);
}

async function requestToken(config: TokenConfig): Promise<{ token: string; lifetimeMs: number }> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, config.timeoutMs);
  const fetchImpl = (config.fetch ?? globalThis.fetch) as FetchLike;

  let response: Response;
  let text: string;
  try {
    const request = new Request(config.tokenUrl, {
      method: "POST",
      headers: {
        Authorization: `Basic ${config.basic}`,
        "Content-Type": "application/x-www-form-urlencoded",
        Accept: "application/json",
      },
      body: config.body,
      signal: controller.signal,
    });
    response = await settleOnAbort(fetchImpl(request), controller.signal, request);
    text = await response.text();
  } catch (cause) {
    if (timedOut) throw new FdxTimeoutError(`POST ${config.tokenUrl} (token request) timed out after ${config.timeoutMs} ms`);
    // A custom fetch could put the request (and so the credentials) in its error: keep such a cause out.
    const safeCause = mentions(cause, config.secrets) ? undefined : cause;
    throw new FdxConnectionError(`POST ${config.tokenUrl} (token request) failed: ${describe(cause, config.secrets)}`, {
      cause: safeCause,
    });
  } finally {
    clearTimeout(timer);
  }

  // A misbehaving server could echo the request: nothing of the secret goes into an error.
  const safeText = redact(text, config.secrets);
  const json = parseObject(safeText);
  if (!response.ok) throw tokenError(response, safeText, json, config.tokenUrl);

  const token = json?.access_token;
  if (typeof token !== "string" || token === "") {
    throw new FdxResponseError(response.status, [
      { path: "access_token", message: json ? "missing from the token response" : "the token response is not a JSON object" },
    ]);
  }
  const expiresIn = Number(json?.expires_in);
  const lifetimeMs = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : DEFAULT_LIFETIME_MS;
  return { token, lifetimeMs };
}

function tokenError(response: Response, text: string, json: Record<string, unknown> | undefined, url: string): FdxApiError {
  const statusText = response.statusText || `HTTP ${response.status}`;
  const code = typeof json?.error === "string" ? json.error : undefined;
  const description = typeof json?.error_description === "string" && json.error_description ? json.error_description : undefined;
  const ErrorClass = apiErrorClass(response.status);
  return new ErrorClass({
    status: response.status,
    code,
    message: description ?? code ?? statusText,
    debugMessage: undefined,
    body: json ?? text,
    headers: Object.fromEntries(response.headers),
    method: "POST",
    url,
    ...(response.status === 429 ? { retryAfterMs: parseRetryAfter(response.headers.get("retry-after")) } : {}),
  });
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join("[redacted]");
  return out;
}

function mentions(value: unknown, secrets: readonly string[], depth = 0): boolean {
  if (depth > 4 || value === null || value === undefined) return false;
  if (typeof value === "string") return secrets.some((s) => s && value.includes(s));
  if (typeof value !== "object") return false;
  if (value instanceof Error && (mentions(value.message, secrets) || mentions(value.stack, secrets))) return true;
  try {
    if (mentions(JSON.stringify(value), secrets)) return true;
  } catch {
    return true; // not inspectable: assume the worst
  }
  return mentions((value as { cause?: unknown }).cause, secrets, depth + 1);
}

function describe(cause: unknown, secrets: readonly string[]): string {
  const message = cause instanceof Error ? cause.message : String(cause);
  return redact(message, secrets);
}
