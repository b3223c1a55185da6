// Reading an id token's claims without a signature check: it came straight
// from the token endpoint over TLS (OpenID Connect Core 3.1.3.7). The checks
// that remain are the ones that say the token is for this client, from this
// issuer, and of this authorization.
import { isRecord } from "../internal/is-record.js";
import { fromBase64 } from "./encoding.js";
import { FdxAuthError } from "./errors.js";

/** What an id token is checked against. */
export interface IdTokenChecks {
  clientId: string;
  issuer: string;
  nonce: string | undefined;
  /** The claims of the tokens refreshed: `iss`, `sub` and `aud` must not change. */
  previous: Record<string, unknown> | undefined;
}

/**
 * The asymmetric JWS algorithms (RFC 7518, RFC 8037, RFC 8812). No signature
 * is verified here, but a token that says `none` (in any spelling) or names a
 * shared-secret MAC was not made by an IdP's signing key, and an app that
 * verifies it later against the JWKS must never be led to accept it.
 */
const ALGORITHMS = new Set(["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "ES256K", "EdDSA", "Ed25519"]);
/** Clock skew allowed on `exp`: a token that expired this recently is still taken. */
const SKEW_MS = 60_000;
/** No real id token lives this long; a later `exp` is hostile, or a date that no store or printout can hold. */
export const MAX_LIFETIME_MS = 400 * 86_400_000;

const fail = (description: string): never => {
  throw new FdxAuthError({ error: "invalid_id_token", errorDescription: description });
};

function part(text: string, what: string): Record<string, unknown> {
  const bytes = fromBase64(text);
  let value: unknown;
  try {
    value = bytes && JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    // reported below
  }
  return isRecord(value) ? value : fail(`its ${what} is not base64url JSON`);
}

/** The claims of a compact JWS id token, after the checks of OIDC Core 3.1.3.7 that need no key. */
export function readIdToken(token: string, checks: IdTokenChecks): Record<string, unknown> {
  const parts = token.split(".");
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p)) || parts[0] === "" || parts[1] === "") {
    fail("it is not a JWT (three base64url parts)");
  }
  const header = part(parts[0]!, "header");
  // Stryker disable next-line ConditionalExpression: ALGORITHMS holds only strings, so the typeof test only names the intent
  if (typeof header.alg !== "string" || !ALGORITHMS.has(header.alg)) fail("its alg is not an asymmetric JWS algorithm");
  const claims = part(parts[1]!, "payload");
  const { iss, sub, aud, azp, exp, nonce } = claims;
  if (iss !== checks.issuer) fail("its iss is not the issuer of this client");
  if (typeof sub !== "string" || sub === "") fail("its sub is missing");
  const audiences =
    typeof aud === "string" ? [aud] : Array.isArray(aud) && aud.every((a) => typeof a === "string") ? (aud as string[]) : fail("its aud is missing");
  if (!audiences.includes(checks.clientId)) fail("its aud does not hold this client's id");
  if ((audiences.length > 1 || azp !== undefined) && azp !== checks.clientId) fail("its azp is not this client's id");
  // Stryker disable next-line ConditionalExpression: Number.isFinite is false for anything not a number, so the typeof test only names the intent
  if (typeof exp !== "number" || !Number.isFinite(exp) || exp <= 0) fail("its exp is missing");
  const now = Date.now();
  if ((exp as number) * 1000 <= now - SKEW_MS) fail("its exp has passed");
  if ((exp as number) * 1000 > now + MAX_LIFETIME_MS) fail("its exp is more than 400 days ahead");
  if (checks.nonce !== undefined && nonce !== checks.nonce) fail("its nonce is not the one of this authorization");
  const previous = checks.previous;
  if (previous) {
    if (previous.iss !== undefined && previous.iss !== iss) fail("its iss differs from the refreshed token's");
    if (previous.sub !== undefined && previous.sub !== sub) fail("its sub differs from the refreshed token's");
    if (previous.aud !== undefined && JSON.stringify(sortedAud(previous.aud)) !== JSON.stringify(sortedAud(aud)))
      fail("its aud differs from the refreshed token's");
  }
  return claims;
}

function sortedAud(aud: unknown): unknown {
  return typeof aud === "string" ? [aud] : Array.isArray(aud) ? [...aud].sort() : aud;
}

/** An id token's claims read with no check at all (undefined when it is not a JWT): for the claims of a token already stored. */
export function peekClaims(token: string): Record<string, unknown> | undefined {
  try {
    const payload = token.split(".")[1];
    // Stryker disable next-line StringLiteral: the name goes only into the error that the catch below drops
    return payload ? part(payload, "payload") : undefined;
  } catch {
    // Not a JWT: no claims.
  }
  return undefined;
}
