// The public shapes of the authorization-code client, apart from its wiring so that each step can name them.
import type { FetchLike } from "../../core/options.js";
import type { KeptIdToken } from "../token-answer.js";
import type { TokenSet } from "../types.js";

/** The IdP's endpoints, when not read from its discovery document. */
export interface AuthEndpoints {
  /** Where the user's browser is sent to approve. */
  authorization: string;
  /** Where codes and refresh tokens are exchanged. */
  token: string;
  /** Where refresh tokens are revoked (RFC 7009); without it, `revoke` throws. */
  revocation?: string | undefined;
}

/** Options of {@link createAuthClient}. */
export interface AuthClientOptions {
  /** The IdP's base URL: its discovery document is `{issuer}/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The registered redirect URI: sent in every authorization and code exchange, never taken from a callback. */
  redirectUri: string;
  /** Custom fetch. Default: `globalThis.fetch`, looked up at call time. */
  fetch?: FetchLike | typeof globalThis.fetch;
  /** Timeout of each request to the IdP. Default 30 000 ms. */
  timeoutMs?: number;
  /** The endpoints, instead of discovery (then id tokens' `iss` must equal `expectedIssuer`, else `issuer`). */
  endpoints?: AuthEndpoints;
  /** Client authentication at the token and revocation endpoints. Default `"client_secret_basic"`. */
  tokenEndpointAuth?: "client_secret_basic" | "client_secret_post";
  /**
   * The `iss` the discovery document, id tokens and callbacks must carry. It need not be a URL (the real
   * network's sandbox names itself `/sandbox`). Default: the configured `issuer`, one trailing slash aside.
   */
  expectedIssuer?: string;
}

/** What {@link AuthClient.authorizationUrl} takes. */
export interface AuthorizationUrlOptions {
  /** The data provider the user connects (sent as `connector`). */
  connector: string;
  /** Default `["openid", "offline_access"]`. */
  scope?: readonly string[];
  /**
   * Default: `"consent"` when the scope holds `offline_access` (a conforming provider grants it only then, so
   * no refresh token would come back), else none. `null` sends no `prompt` at all.
   */
  prompt?: string | null;
  loginHint?: string;
  /** More query parameters (they cannot replace the ones the flow sets). */
  extraParams?: Record<string, string>;
}

/** An authorization request: send the browser to `url`, keep the rest in the user's session for the callback. */
export interface AuthorizationRequest {
  url: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** What the callback is checked against: the values {@link AuthClient.authorizationUrl} returned. */
export interface CallbackChecks {
  state: string;
  codeVerifier: string;
  /** When given, the id token's `nonce` must equal it. */
  nonce?: string | undefined;
  /** Default true: an answer without a refresh token throws `FdxAuthError` (`no_refresh_token`). */
  requireRefreshToken?: boolean | undefined;
}

/** Per-call options of the token endpoint calls. */
export interface TokenCallOptions {
  /** A shorter timeout than the client's (the connection manager keeps it under half its lease). */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** The claims of the tokens being refreshed: `iss`, `sub` and `aud` must not change. */
  previousClaims?: Record<string, unknown> | undefined;
  /**
   * The id token being refreshed and its claims: a refresh answer without an id token (OpenID Connect Core
   * §12.2) keeps them; without this, such an answer is unreadable. Its claims are checked like `previousClaims`.
   */
  previous?: KeptIdToken | undefined;
  /** For `exchangeCode`; default true (it wins over the one in the checks). */
  requireRefreshToken?: boolean | undefined;
}

/** An OpenID Connect client for the authorization-code flow with PKCE. Made by {@link createAuthClient}. */
export interface AuthClient {
  /** The OAuth client id. */
  readonly clientId: string;
  /** The `iss` the IdP's tokens carry (from discovery unless given). */
  issuer(): Promise<string>;
  /** A fresh authorization request: random state and nonce (256 bits each) and a PKCE S256 challenge. */
  authorizationUrl(options: AuthorizationUrlOptions): Promise<AuthorizationRequest>;
  /** Checks the callback (state first, then errors, `iss`, the code) and exchanges its code. */
  exchangeCode(callbackUrl: string | URL, checks: CallbackChecks, options?: TokenCallOptions): Promise<TokenSet>;
  /** Exchanges a refresh token (which is then spent) for a new pair. */
  refresh(refreshToken: string, options?: TokenCallOptions): Promise<TokenSet>;
  /** Revokes a refresh token (RFC 7009, `token_type_hint=refresh_token`). */
  revoke(refreshToken: string, options?: TokenCallOptions): Promise<void>;
}
