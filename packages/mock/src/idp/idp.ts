// The sandbox identity provider (docs/sandbox.md): OpenID Connect's
// authorization-code flow as the real network runs it — an HTML sign-in and
// consent page, single-use codes with PKCE, access and id tokens as the
// bearer of the user's data calls, refresh tokens that rotate on every use,
// revocation, and a consent grant per approval that the consents API serves.
// This module routes the IdP's endpoints and answers what the rest of the
// mock asks; each endpoint lives in a module of its own.

import { MAX_BODY_BYTES, readLimitedBody } from "../body.js";
import { customerNotAuthorized, json, payloadTooLarge, unauthorized } from "../errors.js";
import { consentNotification } from "../routes/test-event.js";
import { SEED_DATA, type SandboxUser } from "../seed.js";
import type { AppState } from "../state.js";
import { AuthorizationEndpoint } from "./authorization.js";
import { authorizeWithoutBrowser, type AuthorizeOptions } from "./browserless.js";
import { MemoryCookieJar, RequestCookies } from "./cookies.js";
import { JwtSigner } from "./jwt.js";
import { oauthError } from "./oauth.js";
import { SignedValues } from "./signed.js";
import { IdpStore, type AuthStats } from "./store.js";
import { TokenEndpoints } from "./token.js";

export type { AuthorizeOptions } from "./browserless.js";
export { isRegisteredRedirectUri } from "./redirect-uris.js";
export { MAX_ACCESS_TOKENS, MAX_CODES, MAX_CONSENTS, type AuthStats } from "./store.js";

/** What the IdP needs from the app. */
export interface IdpConfig {
  /** The base of every endpoint. */
  idpUrl: string;
  /** What the discovery document, id tokens and callbacks name as the issuer. Default: `idpUrl`. */
  issuer?: string;
  clientId: string;
  clientSecret: string;
  redirectUris: readonly string[];
  idTokenTtlMs: number;
  codeTtlMs: number;
  users: readonly SandboxUser[];
}

/** A user's grant as a valid token shows it. */
export interface UserGrant {
  accounts: readonly string[];
}

/** Endpoints a browser may call from another origin (published metadata); the pages and token endpoints are not among them. */
const CORS_PATHS = new Set(["/.well-known/openid-configuration", "/keys"]);

function bearerOf(request: Request): string | undefined {
  const header = request.headers.get("Authorization");
  return header === null ? undefined : (/^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? "");
}

/** The sandbox IdP of one mock instance. */
export class SandboxIdp {
  /** Where the endpoints live (the IdP's URL, no trailing slash). */
  readonly baseUrl: string;
  /** What the discovery document and id tokens name as `iss`. */
  readonly issuer: string;
  readonly origin: string;
  readonly #path: string;
  readonly #config: IdpConfig;
  readonly #store: IdpStore;
  readonly #signer = new JwtSigner();
  readonly #signed = new SignedValues();
  readonly #authorization: AuthorizationEndpoint;
  readonly #tokens: TokenEndpoints;
  /** The browser of `mock.authorize`. */
  readonly #jar = new MemoryCookieJar();

  constructor(config: IdpConfig, state: AppState) {
    this.#config = config;
    this.#store = new IdpStore(state);
    const url = new URL(config.idpUrl);
    this.origin = url.origin;
    this.#path = url.pathname.replace(/\/+$/, "");
    this.baseUrl = `${this.origin}${this.#path}`;
    this.issuer = config.issuer ?? this.baseUrl;
    // Cookies ignore ports, so instances on one host keep theirs apart by name.
    const suffix = url.port === "" ? "" : `_${url.port}`;
    this.#authorization = new AuthorizationEndpoint(
      {
        ...config,
        issuer: this.issuer,
        action: `${this.#path}/auth`,
        cookies: { browser: `fdxkit_idp_browser${suffix}`, session: `fdxkit_idp_session${suffix}` },
      },
      this.#store,
      this.#signed,
    );
    this.#tokens = new TokenEndpoints({ ...config, issuer: this.issuer }, this.#store, this.#signer);
  }

  /** Whether a request URL is one of the IdP's. */
  serves(url: URL): boolean {
    return url.origin === this.origin && (url.pathname === this.#path || url.pathname.startsWith(`${this.#path}/`));
  }

  /** Whether an answer to this URL may carry CORS headers: only the IdP's published metadata does. */
  allowsCors(url: URL): boolean {
    return !this.serves(url) || CORS_PATHS.has(url.pathname.slice(this.#path.length));
  }

  stats(): AuthStats {
    return { ...this.#store.stats };
  }

  /** Forgets codes, tokens, consents and counts; sign-ins and forms made before are refused. */
  reset(): void {
    this.#store.reset();
    this.#signed.reset();
    this.#jar.clear();
  }

  /** Answers a request to the IdP's origin. */
  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.slice(this.#path.length);
    const cookies = () => new RequestCookies(request.headers.get("Cookie"), { path: this.#path || "/", secure: url.protocol === "https:" });
    const endpoints: Record<string, Partial<Record<string, () => Promise<Response> | Response>>> = {
      "/auth": {
        GET: async () => {
          const jar = cookies();
          return jar.applyTo(await this.#authorization.page(url.searchParams, jar));
        },
        POST: () =>
          this.#withForm(request, async (form) => {
            const jar = cookies();
            return jar.applyTo(await this.#authorization.step(form, jar));
          }),
      },
      "/token": { POST: () => this.#withForm(request, (form) => this.#tokens.token(request, form)) },
      "/revoke": { POST: () => this.#withForm(request, (form) => this.#tokens.revoke(request, form)) },
      "/keys": { GET: async () => json(200, await this.#signer.jwks(), { "Cache-Control": "public, max-age=300" }) },
      "/.well-known/openid-configuration": { GET: () => json(200, this.#discovery()) },
    };
    const methods = endpoints[path];
    if (!methods) return json(404, { error: "not_found", error_description: `No IdP endpoint at ${path}` });
    // Own keys only: a method named like an Object.prototype member is no handler.
    const handler = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
    if (!handler) {
      const allow = [...Object.keys(methods), "OPTIONS"].join(", ");
      return oauthError(405, "invalid_request", `Method ${request.method} is not allowed here`, { Allow: allow });
    }
    return handler();
  }

  #discovery() {
    const base = this.baseUrl;
    return {
      issuer: this.issuer,
      authorization_endpoint: `${base}/auth`,
      token_endpoint: `${base}/token`,
      revocation_endpoint: `${base}/revoke`,
      jwks_uri: `${base}/keys`,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["ES256"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      code_challenge_methods_supported: ["S256"],
      scopes_supported: ["openid", "offline_access"],
      prompt_values_supported: ["none", "login", "consent", "select_account"],
      claims_supported: [
        "iss",
        "sub",
        "aud",
        "iat",
        "exp",
        "auth_time",
        "nonce",
        "at_hash",
        "accounts",
        "connectorId",
        "grant_id",
        "products",
        "recipientId",
        "name",
        "sid",
        "jti",
      ],
      authorization_response_iss_parameter_supported: true,
    };
  }

  /** Reads a form-urlencoded body within the size limit, then hands it on. */
  async #withForm(request: Request, next: (form: URLSearchParams) => Promise<Response> | Response): Promise<Response> {
    const type = request.headers.get("Content-Type") ?? "";
    if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
      return oauthError(400, "invalid_request", "The body must be application/x-www-form-urlencoded");
    }
    const body = await readLimitedBody(request);
    if (!body) return payloadTooLarge(MAX_BODY_BYTES);
    return next(new URLSearchParams(new TextDecoder().decode(body)));
  }

  // --- What the rest of the mock asks -----------------------------------------------

  /**
   * Who may make a statement call. The service token (unless user tokens are
   * required): `undefined`. A valid access token or id token of an active
   * consent: its grant. Otherwise the 401 to answer — 602 for a token of this
   * IdP that expired or whose consent ended, and for anything at all when
   * user tokens are required.
   */
  async statementCaller(request: Request, serviceToken: string, requireUserTokens: boolean): Promise<UserGrant | Response | undefined> {
    const bearer = bearerOf(request);
    if (bearer === serviceToken && !requireUserTokens) return undefined;
    if (bearer !== undefined && bearer !== serviceToken) {
      const access = this.#store.accessTokens.get(bearer);
      if (access) {
        if (access.expiresAt <= Date.now() || !this.#store.isActive(access.consentId)) return customerNotAuthorized();
        return { accounts: access.accounts };
      }
      const claims = await this.#signer.verify(bearer);
      if (claims) {
        if (typeof claims.exp !== "number" || claims.exp * 1000 <= Date.now() || !this.#store.isActive(String(claims.grant_id))) return customerNotAuthorized();
        return { accounts: claims.accounts as string[] };
      }
    }
    if (requireUserTokens) return customerNotAuthorized();
    return unauthorized(bearer === undefined ? "Missing bearer token" : "Invalid bearer token");
  }

  /** The user revokes at the provider: the consent turns REVOKED, its refresh token dies, subscribers hear of it. */
  revokeConsent(consentId: string): void {
    const state = this.#store.state;
    const seeded = SEED_DATA.consents.find((c) => c.id === consentId);
    const consent = state.consents.get(consentId) ?? (seeded && structuredClone(seeded));
    if (!consent) throw new RangeError(`Unknown consent id ${JSON.stringify(consentId)}`);
    if (consent.status === "REVOKED") return;
    consent.status = "REVOKED";
    if (!state.consents.has(consentId)) {
      state.consents.set(consentId, consent);
      this.#store.boundConsents();
    }
    const grant = this.#store.grants.get(consentId);
    if (grant) this.#store.dropRefreshToken(grant);
    for (const subscription of state.subscriptions.values()) {
      if (subscription.category !== "CONSENT" || subscription.type !== "CONSENT_REVOKED") continue;
      state.deliveries.enqueue(subscription.subscriptionId as string, subscription.callbackUrl, consentNotification(state, consent, "CONSENT_REVOKED"));
    }
  }

  /**
   * Goes through the authorization pages as a browser would, keeping its
   * cookies from call to call, and returns where the last answer redirects
   * to: the app's callback URL.
   */
  async authorize(authorizationUrl: string, options: AuthorizeOptions = {}): Promise<string> {
    const url = new URL(authorizationUrl);
    if (!this.serves(url) || url.pathname !== `${this.#path}/auth`) {
      throw new TypeError(`${url.origin}${url.pathname} is not this IdP's authorization endpoint (${this.baseUrl}/auth)`);
    }
    return authorizeWithoutBrowser(this.#authorization, this.#jar, url.searchParams, this.#config.users, options);
  }
}
