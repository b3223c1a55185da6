// The authorization request: the URL the user's browser is sent to, with
// fresh state, nonce and PKCE verifier that the callback is later checked
// against.
import { FdxValidationError, type FdxIssue } from "../../core/error.js";
import { randomToken, s256 } from "../encoding.js";
import type { AuthContext } from "./context.js";
import type { AuthorizationRequest, AuthorizationUrlOptions } from "./types.js";

const DEFAULT_SCOPE = ["openid", "offline_access"] as const;
const RESERVED = new Set(["response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method"]);

/** A fresh authorization request; wrong input throws `FdxValidationError` before the IdP is asked anything. */
export async function authorizationUrl(ctx: AuthContext, input: AuthorizationUrlOptions): Promise<AuthorizationRequest> {
  const scope = checkInput(input);
  const { authorization } = await ctx.endpoints();
  const state = randomToken();
  const nonce = randomToken();
  const codeVerifier = randomToken();
  const url = new URL(authorization);
  const query = url.searchParams;
  for (const [key, value] of Object.entries(input.extraParams ?? {})) query.set(key, value);
  query.set("response_type", "code");
  query.set("client_id", ctx.clientId);
  query.set("redirect_uri", ctx.redirectUri);
  query.set("scope", scope.join(" "));
  query.set("state", state);
  query.set("nonce", nonce);
  query.set("code_challenge", await s256(codeVerifier));
  query.set("code_challenge_method", "S256");
  query.set("connector", input.connector);
  // OpenID Connect Core §11: without prompt=consent a provider may drop offline_access, and no refresh token comes.
  const prompt = input.prompt === undefined ? (scope.includes("offline_access") ? "consent" : null) : input.prompt;
  if (prompt !== null) query.set("prompt", prompt);
  if (input.loginHint !== undefined) query.set("login_hint", input.loginHint);
  return { url: url.href, state, nonce, codeVerifier };
}

/** The scope to ask for, once every input is known good; JavaScript callers may pass anything. */
function checkInput(input: AuthorizationUrlOptions): readonly string[] {
  const issues: FdxIssue[] = [];
  if (typeof input?.connector !== "string" || input.connector === "") issues.push({ path: "connector", message: "must be a non-empty string" });
  const scope = input?.scope ?? DEFAULT_SCOPE;
  if (!Array.isArray(scope) || !scope.every((s) => typeof s === "string" && s !== "" && !/\s/.test(s))) {
    issues.push({ path: "scope", message: "must be an array of scope tokens" });
  }
  if (input?.prompt !== undefined && input.prompt !== null && typeof input.prompt !== "string") {
    issues.push({ path: "prompt", message: "must be a string or null" });
  }
  if (input?.loginHint !== undefined && typeof input.loginHint !== "string") issues.push({ path: "loginHint", message: "must be a string" });
  for (const [key, value] of Object.entries(input?.extraParams ?? {})) {
    if (typeof value !== "string") issues.push({ path: `extraParams.${key}`, message: "must be a string" });
    else if (RESERVED.has(key)) issues.push({ path: `extraParams.${key}`, message: "is set by the flow" });
  }
  if (issues.length) throw new FdxValidationError(issues);
  return scope;
}
