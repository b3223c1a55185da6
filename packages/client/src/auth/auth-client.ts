// The OpenID Connect authorization-code flow with PKCE, written by hand on
// Fetch and Web Crypto. oauth4webapi was weighed and not taken (the figures
// are in the package README): this layer shares the main entry's request
// path, so an app using both entries is smaller with it; oauth4webapi's
// discovery refuses the network sandbox's path issuer ("/sandbox"), it
// refuses token answers without an access_token, and it accepts any
// far-future exp, so the checks here would stay anyway. jose would only
// verify signatures, which the flow does not need (OIDC Core 3.1.3.7: the id
// token comes straight from the token endpoint over TLS).
//
// This module wires the steps together; each lives in ./auth-client/.
import { authorizationUrl } from "./auth-client/authorize.js";
import { createAuthContext } from "./auth-client/context.js";
import { exchangeCode } from "./auth-client/exchange.js";
import { readAuthOptions } from "./auth-client/options.js";
import { refresh } from "./auth-client/refresh.js";
import { revoke } from "./auth-client/revoke.js";
import type { AuthClient, AuthClientOptions } from "./auth-client/types.js";

export { isSafeEndpoint } from "./auth-client/discovery.js";
export type {
  AuthClient,
  AuthClientOptions,
  AuthEndpoints,
  AuthorizationRequest,
  AuthorizationUrlOptions,
  CallbackChecks,
  TokenCallOptions,
} from "./auth-client/types.js";

/**
 * An OpenID Connect client for one IdP and one OAuth client.
 * Endpoints come from `{issuer}/.well-known/openid-configuration` (read once,
 * when first needed) or from `endpoints`; they must be `https:` (`http:` only
 * to loopback hosts). Options that are wrong throw `FdxValidationError` at once.
 *
 * @example
 * const auth = createAuthClient({ issuer: "https://idp.example.com", clientId, clientSecret, redirectUri: "https://app.example.com/callback" });
 * const { url, state, nonce, codeVerifier } = await auth.authorizationUrl({ connector: "mikomo" });
 */
export function createAuthClient(options: AuthClientOptions): AuthClient {
  const ctx = createAuthContext(options, readAuthOptions(options));
  return {
    clientId: ctx.clientId,
    issuer: async () => (await ctx.endpoints()).issuer,
    authorizationUrl: (input) => authorizationUrl(ctx, input),
    exchangeCode: (callbackUrl, checks, call) => exchangeCode(ctx, callbackUrl, checks, call),
    refresh: (refreshToken, call) => refresh(ctx, refreshToken, call),
    revoke: (refreshToken, call) => revoke(ctx, refreshToken, call),
  };
}
