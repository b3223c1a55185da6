// The OpenID Connect authorization-code flow with PKCE, written by hand on
// Fetch and Web Crypto. oauth4webapi was weighed and not taken (the figures
// are in the package README): this layer shares the main entry's request
// path, so an app using both entries is smaller with it; oauth4webapi's
// discovery refuses the network sandbox's path issuer ("/sandbox"), it
// refuses token answers without an access_token, and it accepts any
// far-future exp, so the checks here would stay anyway. jose would only
// verify signatures, which the flow does not need (OIDC Core 3.1.3.7: the id
// token comes straight from the token endpoint over TLS).
import { FdxResponseError, FdxValidationError, type FdxIssue } from "../core/error.js";
import { clip, redactText, secretForms } from "../core/redact.js";
import type { FetchLike } from "../core/options.js";
import { checkInteger, httpUrl, isLoopbackHost } from "../internal/checks.js";
import { isRecord } from "../internal/is-record.js";
import { request } from "../internal/request.js";
import type { Transport } from "../internal/types.js";
import { randomToken, s256 } from "./encoding.js";
import { clientAuth, postForm, toAuthError, tokenTransport } from "./token-endpoint.js";
import { FdxAuthError } from "./errors.js";
import { readTokenAnswer, type KeptIdToken, type TokenChecks } from "./token-answer.js";
import type { TokenSet } from "./types.js";

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

interface Resolved {
  authorization: string;
  token: string;
  revocation: string | undefined;
  issuer: string;
}

const DEFAULT_SCOPE = ["openid", "offline_access"] as const;
const RESERVED = new Set(["response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method"]);

/** Whether an endpoint may be used: `https:`, or `http:` to a loopback host. */
export function isSafeEndpoint(value: unknown): boolean {
  const url = httpUrl(value);
  return url !== undefined && (url.protocol === "https:" || isLoopbackHost(url.hostname));
}

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
  const issues: FdxIssue[] = [];
  for (const key of ["clientId", "clientSecret"] as const) {
    if (typeof options[key] !== "string" || options[key] === "") issues.push({ path: key, message: "must be a non-empty string" });
  }
  let issuerUrl = "";
  try {
    issuerUrl = new URL(options.issuer).href;
  } catch {
    // reported below
  }
  if (!options.endpoints && !isSafeEndpoint(issuerUrl)) issues.push({ path: "issuer", message: "must be an https: URL (http: only to a loopback host)" });
  try {
    new URL(options.redirectUri);
  } catch {
    issues.push({ path: "redirectUri", message: "must be an absolute URL" });
  }
  const timeoutMs = options.timeoutMs ?? 30_000;
  checkInteger(timeoutMs, 1, "timeoutMs", issues);
  const authMethod = options.tokenEndpointAuth ?? "client_secret_basic";
  if (authMethod !== "client_secret_basic" && authMethod !== "client_secret_post") {
    issues.push({ path: "tokenEndpointAuth", message: 'must be "client_secret_basic" or "client_secret_post"' });
  }
  if (options.expectedIssuer !== undefined && (typeof options.expectedIssuer !== "string" || options.expectedIssuer === "")) {
    issues.push({ path: "expectedIssuer", message: "must be a non-empty string" });
  }
  if (options.endpoints) {
    const { authorization, token, revocation } = options.endpoints;
    const bad = (path: string) => issues.push({ path: `endpoints.${path}`, message: "must be an https: URL (http: only to a loopback host)" });
    if (!isSafeEndpoint(authorization)) bad("authorization");
    if (!isSafeEndpoint(token)) bad("token");
    if (revocation !== undefined && !isSafeEndpoint(revocation)) bad("revocation");
    if (options.expectedIssuer === undefined && (typeof options.issuer !== "string" || options.issuer === "")) {
      issues.push({ path: "issuer", message: "must be a non-empty string" });
    }
  }
  if (issues.length) throw new FdxValidationError(issues);

  const { clientId, clientSecret, redirectUri } = options;
  const { basic, secrets: clientSecrets } = clientAuth(clientId, clientSecret);
  const transport = tokenTransport(options.fetch, timeoutMs);

  let resolved: Promise<Resolved> | undefined;
  const endpoints = (): Promise<Resolved> => {
    if (options.endpoints) {
      const { authorization, token, revocation } = options.endpoints;
      return Promise.resolve({ authorization, token, revocation, issuer: options.expectedIssuer ?? options.issuer });
    }
    // Cached once read; a failed read is tried again next time.
    resolved ??= discover(transport, issuerUrl, options.issuer, options.expectedIssuer).catch((error: unknown) => {
      resolved = undefined;
      throw error;
    });
    return resolved;
  };

  const post = async (url: string, params: URLSearchParams, secrets: string[], call: TokenCallOptions | undefined) => {
    if (authMethod === "client_secret_post") {
      params.set("client_id", clientId);
      params.set("client_secret", clientSecret);
    }
    const all = [...secrets.flatMap(secretForms), ...clientSecrets];
    try {
      return await postForm(
        transport,
        {
          url,
          form: params.toString(),
          authorization: authMethod === "client_secret_basic" ? `Basic ${basic}` : "",
          secrets: all,
          options: { timeoutMs: call?.timeoutMs, signal: call?.signal },
        },
        "json",
      );
    } catch (error) {
      throw toAuthError(error);
    }
  };

  type Checks = Omit<TokenChecks, "clientId" | "issuer" | "secrets">;
  const tokenCall = async (params: URLSearchParams, secrets: string[], call: TokenCallOptions | undefined, checks: Checks) => {
    const { token, issuer } = await endpoints();
    const answer = await post(token, params, secrets, call);
    try {
      return readTokenAnswer(answer.status, answer.data, { ...checks, clientId, issuer, secrets: [...secrets.flatMap(secretForms), ...clientSecrets] });
    } catch (error) {
      // A refresh token issued with an answer we refuse is kept nowhere: revoked, so it does not outlive the error.
      const issued = isRecord(answer.data) ? answer.data.refresh_token : undefined;
      // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: revoke() refuses a token that is not a non-empty string before sending anything, and revokeQuietly drops that refusal; the first two checks only spare the call
      if (typeof issued === "string" && issued !== "" && issued !== checks.refreshToken) await revokeQuietly(issued);
      throw error;
    }
  };

  const revoke = async (refreshToken: string, call?: TokenCallOptions) => {
    if (typeof refreshToken !== "string" || refreshToken === "") throw new FdxValidationError([{ path: "refreshToken", message: "must be a non-empty string" }]);
    const { revocation } = await endpoints();
    if (!revocation) throw new FdxValidationError([{ path: "endpoints.revocation", message: "the IdP has no revocation endpoint" }]);
    await post(revocation, new URLSearchParams({ token: refreshToken, token_type_hint: "refresh_token" }), [refreshToken], call);
  };
  const revokeQuietly = (refreshToken: string) =>
    revoke(refreshToken).catch(() => {
      // Best effort: the IdP expires it in time.
    });

  return {
    clientId,
    issuer: async () => (await endpoints()).issuer,

    async authorizationUrl(input) {
      const issues: FdxIssue[] = [];
      if (typeof input?.connector !== "string" || input.connector === "") issues.push({ path: "connector", message: "must be a non-empty string" });
      const scope = input?.scope ?? DEFAULT_SCOPE;
      if (!Array.isArray(scope) || !scope.every((s) => typeof s === "string" && s !== "" && !/\s/.test(s))) {
        issues.push({ path: "scope", message: "must be an array of scope tokens" });
      }
      if (input?.prompt !== undefined && input.prompt !== null && typeof input.prompt !== "string") issues.push({ path: "prompt", message: "must be a string or null" });
      if (input?.loginHint !== undefined && typeof input.loginHint !== "string") issues.push({ path: "loginHint", message: "must be a string" });
      for (const [key, value] of Object.entries(input?.extraParams ?? {})) {
        if (typeof value !== "string") issues.push({ path: `extraParams.${key}`, message: "must be a string" });
        else if (RESERVED.has(key)) issues.push({ path: `extraParams.${key}`, message: "is set by the flow" });
      }
      if (issues.length) throw new FdxValidationError(issues);
      const { authorization } = await endpoints();
      const state = randomToken();
      const nonce = randomToken();
      const codeVerifier = randomToken();
      const url = new URL(authorization);
      const query = url.searchParams;
      for (const [key, value] of Object.entries(input.extraParams ?? {})) query.set(key, value);
      query.set("response_type", "code");
      query.set("client_id", clientId);
      query.set("redirect_uri", redirectUri);
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
    },

    async exchangeCode(callbackUrl, checks, call) {
      // Without them the callback cannot be tied to this user's authorization: refused like a callback that does not match.
      const missing = (["state", "codeVerifier", "nonce"] as const).filter((key) =>
        key === "nonce" ? checks?.nonce !== undefined && (typeof checks.nonce !== "string" || checks.nonce === "") : typeof checks?.[key] !== "string" || checks[key] === "",
      );
      if (missing.length) throw new FdxAuthError({ error: "invalid_request", errorDescription: `${missing.join(", ")} must be non-empty strings (from authorizationUrl)` });
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
        const secrets = [query.get("code") ?? "", checks.codeVerifier, checks.nonce ?? "", checks.state].flatMap(secretForms);
        throw new FdxAuthError({ error: redactText(error, secrets), errorDescription: description === undefined ? undefined : redactText(description, secrets) });
      }
      const iss = query.getAll("iss");
      if (iss.length > 1 || (iss.length === 1 && iss[0] !== (await endpoints()).issuer)) {
        throw new FdxAuthError({ error: "invalid_issuer", errorDescription: "the callback's iss is not the issuer of this client (RFC 9207)" });
      }
      const codes = query.getAll("code");
      if (codes.length !== 1 || codes[0] === "") throw new FdxAuthError({ error: "invalid_callback", errorDescription: "the callback carries no single code" });
      const code = codes[0]!;
      const params = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: checks.codeVerifier });
      const requireRefreshToken = call?.requireRefreshToken ?? checks.requireRefreshToken ?? true;
      return tokenCall(params, [code, checks.codeVerifier, checks.state, checks.nonce ?? ""], call, {
        nonce: checks.nonce,
        previous: undefined,
        refreshToken: undefined,
        requireRefreshToken: requireRefreshToken !== false,
        kept: undefined,
      });
    },

    async refresh(refreshToken, call) {
      if (typeof refreshToken !== "string" || refreshToken === "") throw new FdxValidationError([{ path: "refreshToken", message: "must be a non-empty string" }]);
      const params = new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken });
      const kept = call?.previous;
      return tokenCall(params, [refreshToken, kept?.idToken ?? ""], call, {
        nonce: undefined,
        previous: call?.previousClaims ?? kept?.claims,
        refreshToken,
        requireRefreshToken: true,
        kept,
      });
    },

    revoke,
  };
}

async function discover(transport: Transport, issuerUrl: string, configured: string, expectedIssuer: string | undefined): Promise<Resolved> {
  const url = `${issuerUrl.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  // request() sends `authorization` as given: empty, since discovery is public (a bearer-less GET has no other spelling there yet).
  const { status, data } = await request(transport, { method: "GET", url, authorization: "", options: undefined }, "json");
  const issues: FdxIssue[] = [];
  const doc = isRecord(data) ? data : {};
  if (!isRecord(data)) issues.push({ path: "", message: "the discovery document is not a JSON object" });
  const issuer = doc.issuer;
  if (isRecord(data) && (typeof issuer !== "string" || issuer === "")) issues.push({ path: "issuer", message: "must be a non-empty string" });
  else if (isRecord(data)) {
    const mismatch = issuerMismatch(issuer as string, configured, expectedIssuer);
    if (mismatch) issues.push({ path: "issuer", message: mismatch });
  }
  for (const key of ["authorization_endpoint", "token_endpoint"]) {
    if (isRecord(data) && !isSafeEndpoint(doc[key])) issues.push({ path: key, message: "must be an https: URL (http: only to a loopback host)" });
  }
  const revocation = doc.revocation_endpoint;
  if (revocation !== undefined && !isSafeEndpoint(revocation)) issues.push({ path: "revocation_endpoint", message: "must be an https: URL (http: only to a loopback host)" });
  if (issues.length) throw new FdxResponseError(status, issues);
  return {
    authorization: doc.authorization_endpoint as string,
    token: doc.token_endpoint as string,
    revocation: revocation as string | undefined,
    issuer: expectedIssuer ?? (issuer as string),
  };
}

const withoutSlash = (issuer: string) => (issuer.endsWith("/") ? issuer.slice(0, -1) : issuer);

/**
 * Why a discovery document's `issuer` is not the one this client was set up
 * for (RFC 8414 §3.3, the mix-up defence), or undefined when it is. Without
 * `expectedIssuer` it must be the configured issuer, one trailing slash
 * aside; so a provider that names itself by a path (not a URL) is taken only
 * when the app says so in `expectedIssuer`. Issuers are public: both are named.
 */
function issuerMismatch(issuer: string, configured: string, expectedIssuer: string | undefined): string | undefined {
  const shown = clip(JSON.stringify(issuer), [], 120);
  if (expectedIssuer !== undefined) return issuer === expectedIssuer ? undefined : `is ${shown}, not the expectedIssuer ${JSON.stringify(expectedIssuer)}`;
  if (withoutSlash(issuer) === withoutSlash(configured)) return undefined;
  return `is ${shown}, not the configured issuer ${JSON.stringify(configured)} (set expectedIssuer when the provider names itself otherwise)`;
}
