import { FdxResponseError, FdxValidationError, type FdxIssue } from "../core/error.js";
import type { FetchLike, TokenContext } from "../core/options.js";
import { checkInteger, httpUrl } from "../internal/checks.js";
import type { Transport } from "../internal/types.js";
import { clientAuth, parseTokenAnswer, postForm, tokenTransport } from "./token-endpoint.js";

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
 * makes concurrent callers share one token request. Told that its token was
 * rejected (`{ rejected }`, after a 401), it drops it and fetches another. A failed token request
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
export function clientCredentials(options: ClientCredentialsOptions): (context?: TokenContext) => Promise<string> {
  const config = checkOptions(options);
  let cached: { token: string; refreshAt: number } | undefined;
  let pending: Promise<string> | undefined;

  return (context) => {
    // The server refused the cached token (revoked, or expired early): fetch another. A rejection of an
    // older token (another caller already renewed it) keeps the cache.
    if (cached && context?.rejected !== undefined && context.rejected === cached.token) cached = undefined;
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
  /** The request path, without a bearer token, hooks, retries or interaction ids. */
  transport: Transport;
  /** Strings that must never reach an error: the secret and its encodings. */
  secrets: string[];
}

function checkOptions(options: ClientCredentialsOptions): TokenConfig {
  const issues: FdxIssue[] = [];
  const tokenUrl = httpUrl(options.tokenUrl)?.href ?? "";
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
  checkInteger(timeoutMs, 0, "timeoutMs", issues);
  if (issues.length) throw new FdxValidationError(issues);

  const { basic, secrets } = clientAuth(options.clientId, options.clientSecret);
  const body = new URLSearchParams({ grant_type: "client_credentials" });
  if (scope) body.set("scope", scope);
  return { tokenUrl, basic, body: body.toString(), transport: tokenTransport(options.fetch, timeoutMs), secrets };
}

async function requestToken(config: TokenConfig): Promise<{ token: string; lifetimeMs: number }> {
  const { text, status, response } = await postForm(
    config.transport,
    { url: config.tokenUrl, form: config.body, authorization: `Basic ${config.basic}`, secrets: config.secrets, options: undefined },
    // Stryker disable next-line StringLiteral: request() reads the body as text in every mode but "json" and "stream"
    "text",
  );
  // Stryker disable next-line StringLiteral: a missing content type is any value that names no form type
  const fields = parseTokenAnswer(text, response.headers.get("content-type") ?? "");
  const token = fields?.access_token;
  if (typeof token !== "string" || token === "") {
    throw new FdxResponseError(status, [
      { path: "access_token", message: fields ? "missing from the token response" : "the token response is not a JSON object" },
    ]);
  }
  // Stryker disable next-line OptionalChaining: fields is defined here (an undefined one has thrown above for its access_token)
  const expiresIn = Number(fields?.expires_in);
  const lifetimeMs = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : DEFAULT_LIFETIME_MS;
  return { token, lifetimeMs };
}
