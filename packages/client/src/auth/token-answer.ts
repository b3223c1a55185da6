// Reading a token endpoint's answer (RFC 6749 §5.1, OpenID Connect Core
// §3.1.3.3 and §12.2) into a TokenSet: which fields must be there, which may
// be missing, and what a missing refresh token most likely means.
import { FdxResponseError, type FdxIssue } from "../core/error.js";
import { clip, redactText, secretForms } from "../core/redact.js";
import { isRecord } from "../internal/is-record.js";
import { FdxAuthError } from "./errors.js";
import { MAX_LIFETIME_MS, readIdToken } from "./id-token.js";
import type { TokenSet } from "./types.js";

/** The id token a refresh answer without one leaves in place (OpenID Connect Core §12.2). */
export interface KeptIdToken {
  idToken: string;
  claims: Record<string, unknown>;
}

/** What a token answer is checked against. */
export interface TokenChecks {
  clientId: string;
  issuer: string;
  nonce: string | undefined;
  /** The claims of the tokens refreshed: `iss`, `sub` and `aud` must not change. */
  previous: Record<string, unknown> | undefined;
  /** The refresh token sent: kept when the answer brings no new one (RFC 6749 §6). */
  refreshToken: string | undefined;
  /** Whether a code exchange's answer must carry a refresh token. */
  requireRefreshToken: boolean;
  /** When given, an answer without an id token keeps this one. */
  kept: KeptIdToken | undefined;
  /** Every form of every secret of the call, redacted from what the answer's text puts in an error. */
  secrets: readonly string[];
}

const MAX_EXPIRES_IN_S = MAX_LIFETIME_MS / 1000;
/** The latest epoch milliseconds a JavaScript Date holds. */
const MAX_DATE_MS = 8.64e15;

/** A token answer as a TokenSet, or the typed error that says what it lacks. */
export function readTokenAnswer(status: number, data: unknown, checks: TokenChecks): TokenSet {
  if (!isRecord(data)) throw new FdxResponseError(status, [{ path: "", message: "the token answer is not a JSON object" }]);
  const { id_token: idToken, refresh_token: refresh, expires_in: expiresIn } = data;
  const now = Date.now();
  const issues: FdxIssue[] = [];
  const keep = idToken === undefined && checks.kept !== undefined;
  if (!keep && (typeof idToken !== "string" || idToken === "")) issues.push({ path: "id_token", message: "must be a non-empty string" });
  if (refresh !== undefined && (typeof refresh !== "string" || refresh === "")) issues.push({ path: "refresh_token", message: "must be a non-empty string" });
  const accessTokenExpiresAt = expiryOf(expiresIn, now);
  if (accessTokenExpiresAt === undefined) issues.push({ path: "expires_in", message: `must be a number of seconds from 1 to ${MAX_EXPIRES_IN_S}` });
  if (issues.length) throw new FdxResponseError(status, issues);
  if (refresh === undefined && checks.refreshToken === undefined && checks.requireRefreshToken) throw noRefreshToken(status, data, checks.secrets);
  const refreshToken = (refresh as string | undefined) ?? checks.refreshToken ?? "";
  // readIdToken's errors name the failed check, never the token.
  const claims = keep ? checks.kept!.claims : readIdToken(idToken as string, checks);
  return {
    idToken: keep ? checks.kept!.idToken : (idToken as string),
    refreshToken,
    expiresAt: keep ? storedExpiry(claims.exp) : (claims.exp as number) * 1000,
    accessToken: typeof data.access_token === "string" ? data.access_token : "",
    accessTokenExpiresAt: accessTokenExpiresAt!,
    accounts: Array.isArray(claims.accounts) ? claims.accounts.filter((a): a is string => typeof a === "string") : [],
    subject: claims.sub as string,
    ...(typeof claims.connectorId === "string" ? { connector: claims.connectorId } : {}),
    ...(typeof claims.grant_id === "string" ? { consentId: claims.grant_id } : {}),
    claims,
  };
}

/** `expires_in` as epoch milliseconds: 0 when absent, undefined when it is no lifetime a real token has. */
function expiryOf(value: unknown, now: number): number | undefined {
  if (value === undefined) return 0;
  // Some providers send the number as a string; anything else that is not a plain number is not read.
  const seconds = typeof value === "number" ? value : typeof value === "string" && /^\d{1,9}(\.\d{1,9})?$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds >= 1 && seconds <= MAX_EXPIRES_IN_S)) return undefined;
  return Math.floor(now + seconds * 1000);
}

/** The `exp` of an id token kept from before, as milliseconds a Date can hold (0 when it has none). */
function storedExpiry(exp: unknown): number {
  // Stryker disable next-line EqualityOperator: an exp of 0 gives 0 either way
  return typeof exp === "number" && exp > 0 && exp * 1000 <= MAX_DATE_MS ? exp * 1000 : 0;
}

/**
 * An answer without the refresh token that a stored connection needs. The
 * usual cause is on the authorization side: a conforming provider grants
 * `offline_access` only with `prompt=consent` (OpenID Connect Core §11), so
 * the error names the scope granted and `prompt` rather than the answer.
 */
function noRefreshToken(status: number, data: Record<string, unknown>, secrets: readonly string[]): FdxAuthError {
  // An empty or absent token has no forms to redact; a token that is not a string (a provider's bug) is no token.
  const tokens = [data.id_token, data.access_token].filter((t): t is string => typeof t === "string");
  const redacted = typeof data.scope === "string" ? redactText(data.scope, [...secrets, ...tokens.flatMap(secretForms)]) : undefined;
  // Stryker disable next-line ArrayDeclaration: the text is redacted already; clip only shortens it
  const scope = redacted === undefined ? "not stated" : clip(JSON.stringify(redacted), [], 120);
  return new FdxAuthError({
    error: "no_refresh_token",
    errorDescription:
      `the provider sent no refresh token (granted scope: ${scope}); the usual cause is prompt: a provider drops offline_access ` +
      `unless prompt=consent is sent, so leave prompt unset (authorizationUrl then sends consent) or ask for offline_access`,
    status,
  });
}
