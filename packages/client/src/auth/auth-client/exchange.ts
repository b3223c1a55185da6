// The callback of an authorization and the exchange of its code. The
// callback's state is checked first, so nothing in a callback that does not
// answer this user's authorization is believed; then an error it carries,
// its `iss` (RFC 9207, the mix-up defence), and last its code.
import { redactText, secretForms } from "../../core/redact.js";
import type { TokenSet } from "../types.js";
import { FdxAuthError } from "../errors.js";
import type { AuthContext } from "./context.js";
import { tokenCall } from "./token-call.js";
import type { CallbackChecks, TokenCallOptions } from "./types.js";

/** Checks the callback and exchanges its code for tokens. */
export async function exchangeCode(ctx: AuthContext, callbackUrl: string | URL, checks: CallbackChecks, call: TokenCallOptions | undefined): Promise<TokenSet> {
  const code = await callbackCode(ctx, callbackUrl, checks);
  const params = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: ctx.redirectUri, code_verifier: checks.codeVerifier });
  // Stryker disable next-line LogicalOperator: undefined && true is undefined, which is not false either
  const requireRefreshToken = call?.requireRefreshToken ?? checks.requireRefreshToken ?? true;
  // Stryker disable next-line StringLiteral: any string that is not in the answer redacts nothing
  return tokenCall(ctx, params, [code, checks.codeVerifier, checks.state, checks.nonce ?? ""], call, {
    nonce: checks.nonce,
    previous: undefined,
    refreshToken: undefined,
    requireRefreshToken: requireRefreshToken !== false,
    kept: undefined,
  });
}

/** The callback's code, once the callback is shown to answer this user's authorization. */
async function callbackCode(ctx: AuthContext, callbackUrl: string | URL, checks: CallbackChecks): Promise<string> {
  // Without them the callback cannot be tied to this user's authorization: refused like a callback that does not match.
  const missing = (["state", "codeVerifier", "nonce"] as const).filter((key) =>
    key === "nonce"
      ? checks?.nonce !== undefined && (typeof checks.nonce !== "string" || checks.nonce === "")
      : typeof checks?.[key] !== "string" || checks[key] === "",
  );
  if (missing.length) {
    throw new FdxAuthError({ error: "invalid_request", errorDescription: `${missing.join(", ")} must be non-empty strings (from authorizationUrl)` });
  }
  let query: URLSearchParams;
  try {
    query = new URL(callbackUrl).searchParams;
  } catch {
    throw new FdxAuthError({ error: "invalid_callback", errorDescription: "the callback URL is not an absolute URL" });
  }
  const states = query.getAll("state");
  if (states.length !== 1 || states[0] !== checks.state) {
    throw new FdxAuthError({
      error: "invalid_state",
      errorDescription: states.length > 1 ? "the callback carries more than one state" : "the callback's state is not the one of this authorization",
    });
  }
  const error = query.get("error");
  if (error !== null) {
    const description = query.get("error_description") ?? undefined;
    // Stryker disable next-line StringLiteral: any string that is not in the answer redacts nothing
    const secrets = [query.get("code") ?? "", checks.codeVerifier, checks.nonce ?? "", checks.state].flatMap(secretForms);
    throw new FdxAuthError({ error: redactText(error, secrets), errorDescription: description === undefined ? undefined : redactText(description, secrets) });
  }
  const iss = query.getAll("iss");
  if (iss.length > 1 || (iss.length === 1 && iss[0] !== (await ctx.endpoints()).issuer)) {
    throw new FdxAuthError({ error: "invalid_issuer", errorDescription: "the callback's iss is not the issuer of this client (RFC 9207)" });
  }
  const codes = query.getAll("code");
  if (codes.length !== 1 || codes[0] === "") throw new FdxAuthError({ error: "invalid_callback", errorDescription: "the callback carries no single code" });
  return codes[0]!;
}
