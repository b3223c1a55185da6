// The sandbox identity provider (DESIGN.md §10): OpenID Connect's
// authorization-code flow as the real network runs it — an HTML sign-in and
// consent page, single-use codes with PKCE, id tokens as the bearer of the
// user's data calls, refresh tokens that rotate on every use, revocation, and
// a consent grant per approval that the consents API serves.

import { MAX_BODY_BYTES, readLimitedBody } from "../body.js";
import { customerNotAuthorized, json, payloadTooLarge, unauthorized } from "../errors.js";
import { consentNotification } from "../routes/test-event.js";
import { ACCOUNT_PRODUCTS, CONSENT_PARTIES, SEED_DATA, type SandboxUser } from "../seed.js";
import type { AppState } from "../state.js";
import type { ConsentGrant } from "../types.js";
import { consentPage, errorPage, readError, readHiddenFields, signInPage, type PageContext } from "./html.js";
import { base64url, fromBase64url, JwtSigner, randomToken, s256 } from "./jwt.js";

/** Counts of what the IdP did, for tests of refresh races (`mock.authStats()`). */
export interface AuthStats {
  /** Authorization codes issued (one per approval). */
  codesIssued: number;
  /** Codes exchanged for tokens. */
  codesExchanged: number;
  /** Refresh-token grants answered with new tokens. */
  refreshes: number;
  /** Refresh-token grants refused (a spent, revoked or unknown refresh token, or a revoked consent). */
  refreshesRejected: number;
  /** Revocation requests answered 200 (RFC 7009: an unknown token too). */
  revocations: number;
}

/** Options of `mock.authorize`: who signs in, what they tick, or whether they say no. */
export interface AuthorizeOptions {
  /** The sandbox user who signs in. Default: `seed.users[0]`. */
  username?: string;
  /** The accounts ticked. Default: all of the user's accounts. */
  accounts?: string[];
  /** `true`: the user presses Deny (the callback carries `error=access_denied`). */
  deny?: boolean;
}

/** What the IdP needs from the app. */
export interface IdpConfig {
  /** The issuer and the base of every endpoint. */
  idpUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUris: readonly string[];
  idTokenTtlMs: number;
  codeTtlMs: number;
  users: readonly SandboxUser[];
}

/** A user's grant as a valid id token shows it. */
export interface UserGrant {
  accounts: readonly string[];
}

/** At most this many unexchanged codes and this many consents of approvals are kept; the oldest go first. */
export const MAX_CODES = 1000;
/** @see MAX_CODES */
export const MAX_CONSENTS = 1000;
/** How long the signed-in step of one authorization stays valid. */
const SIGN_IN_TTL_MS = 10 * 60 * 1000;

/** The exact answer the real service gives to a spent refresh token (and to every refused refresh). */
const SPENT_REFRESH_TOKEN = "Refresh token is invalid or has already been claimed by another client.";
const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
/** The authorization request's parameters that the pages carry from step to step. */
const AUTH_PARAMS = ["response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method", "connector", "prompt", "login_hint"];

interface AuthRequest {
  clientId: string;
  redirectUri: string;
  state: string | undefined;
  nonce: string | undefined;
  codeChallenge: string | undefined;
  connector: string;
  loginHint: string | undefined;
  page: PageContext;
}

interface CodeRecord {
  redirectUri: string;
  codeChallenge: string | undefined;
  nonce: string | undefined;
  consentId: string;
  expiresAt: number;
}

/** One approval: the consent it created and the one refresh token that is live for it. */
interface GrantRecord {
  consentId: string;
  clientId: string;
  subject: string;
  accounts: string[];
  connector: string;
  refreshToken: string | undefined;
}

/**
 * Whether `candidate` is a registered redirect URI: a loopback one (`http:`
 * to 127.0.0.1, [::1] or localhost) matches on any port with exactly the
 * same path and query (RFC 8252 §7.3); any other matches exactly.
 */
export function isRegisteredRedirectUri(candidate: string, registered: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  return registered.some((entry) => {
    if (entry === candidate) return true;
    const known = new URL(entry);
    if (known.protocol !== "http:" || !LOOPBACK_HOSTS.has(known.hostname)) return false;
    // Rebuilt from the parts that must match, with the candidate's port: any
    // other difference (case, dot segments, userinfo, a fragment) fails.
    return url.protocol === "http:" && url.hostname === known.hostname && candidate === `http://${url.host}${known.pathname}${known.search}`;
  });
}

function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return json(status, { error, error_description: description }, { "Cache-Control": "no-store", Pragma: "no-cache", ...headers });
}

const invalidClient = () =>
  oauthError(401, "invalid_client", "Client authentication failed", { "WWW-Authenticate": 'Basic realm="fdxkit-sandbox"' });

/** RFC 6749 §2.3.1: the Basic credentials' parts are form-urlencoded first. */
function formDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return undefined;
  }
}

/** What a sign-in ticket is bound to: the user and expiry, and the authorization request it was made for. */
function ticketInput(claims: string, request: AuthRequest): string {
  return [claims, request.clientId, request.redirectUri, request.state ?? "", request.nonce ?? "", request.codeChallenge ?? ""].join("\n");
}

function bearerOf(request: Request): string | undefined {
  const header = request.headers.get("Authorization");
  return header === null ? undefined : (/^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? "");
}

/** The sandbox IdP of one mock instance. */
export class SandboxIdp {
  readonly issuer: string;
  readonly origin: string;
  readonly #path: string;
  readonly #config: IdpConfig;
  readonly #state: AppState;
  readonly #signer = new JwtSigner();
  #hmacKey: Promise<CryptoKey> | undefined;
  readonly #codes = new Map<string, CodeRecord>();
  /** Approvals by consent id, oldest first. */
  readonly #grants = new Map<string, GrantRecord>();
  /** The live refresh token of each grant → its consent id (a spent one is gone). */
  readonly #refreshTokens = new Map<string, string>();
  #stats: AuthStats = { codesIssued: 0, codesExchanged: 0, refreshes: 0, refreshesRejected: 0, revocations: 0 };

  constructor(config: IdpConfig, state: AppState) {
    this.#config = config;
    this.#state = state;
    const url = new URL(config.idpUrl);
    this.origin = url.origin;
    this.#path = url.pathname.replace(/\/+$/, "");
    this.issuer = `${this.origin}${this.#path}`;
  }

  /** Whether a request URL is one of the IdP's. */
  serves(url: URL): boolean {
    return url.origin === this.origin && (url.pathname === this.#path || url.pathname.startsWith(`${this.#path}/`));
  }

  stats(): AuthStats {
    return { ...this.#stats };
  }

  reset(): void {
    this.#codes.clear();
    this.#grants.clear();
    this.#refreshTokens.clear();
    this.#stats = { codesIssued: 0, codesExchanged: 0, refreshes: 0, refreshesRejected: 0, revocations: 0 };
  }

  /** Answers a request to the IdP's origin. */
  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.slice(this.#path.length);
    const endpoints: Record<string, Partial<Record<string, () => Promise<Response> | Response>>> = {
      "/auth": { GET: () => this.#authorizationPage(url.searchParams), POST: () => this.#withForm(request, (form) => this.#authorizationStep(form)) },
      "/token": { POST: () => this.#withForm(request, (form) => this.#token(request, form)) },
      "/revoke": { POST: () => this.#withForm(request, (form) => this.#revoke(request, form)) },
      "/keys": { GET: async () => json(200, await this.#signer.jwks(), { "Cache-Control": "public, max-age=300" }) },
      "/.well-known/openid-configuration": { GET: () => json(200, this.#discovery()) },
    };
    const methods = endpoints[path];
    if (!methods) return json(404, { error: "not_found", error_description: `No IdP endpoint at ${path}` });
    const handler = methods[request.method];
    if (!handler) {
      const allow = [...Object.keys(methods), "OPTIONS"].join(", ");
      return oauthError(405, "invalid_request", `Method ${request.method} is not allowed here`, { Allow: allow });
    }
    return handler();
  }

  #discovery() {
    const base = this.issuer;
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
      claims_supported: ["iss", "sub", "aud", "iat", "exp", "nonce", "accounts", "connectorId", "grant_id"],
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

  // --- The authorization endpoint -------------------------------------------------

  /**
   * The authorization request, or what to answer instead: an error page when
   * the client or redirect URI is wrong (never a redirect to an unchecked
   * URI, RFC 6749 §4.1.2.1), else an error redirect.
   */
  #authorizationRequest(params: URLSearchParams): AuthRequest | Response {
    const one = (name: string) => params.getAll(name);
    const clientIds = one("client_id");
    const redirectUris = one("redirect_uri");
    if (clientIds.length !== 1) return errorPage(400, "The request must carry exactly one client_id.");
    const clientId = clientIds[0] as string;
    if (clientId !== this.#config.clientId) return errorPage(400, `Unknown client_id "${clientId}".`);
    if (redirectUris.length !== 1) return errorPage(400, "The request must carry exactly one redirect_uri.");
    const redirectUri = redirectUris[0] as string;
    if (!isRegisteredRedirectUri(redirectUri, this.#config.redirectUris)) {
      return errorPage(400, `The redirect_uri "${redirectUri}" is not registered for ${clientId}.`);
    }

    const state = params.get("state") ?? undefined;
    const fail = (error: string, description: string) => this.#redirect(redirectUri, { error, error_description: description, state });
    const repeated = AUTH_PARAMS.find((name) => params.getAll(name).length > 1);
    if (repeated) return fail("invalid_request", `The ${repeated} parameter is repeated`);
    const responseType = params.get("response_type");
    if (responseType === null) return fail("invalid_request", "response_type is required");
    if (responseType !== "code") return fail("unsupported_response_type", "Only response_type=code is supported");
    const scope = (params.get("scope") ?? "").split(" ");
    if (!scope.includes("openid")) return fail("invalid_scope", "The scope must include openid");
    const codeChallenge = params.get("code_challenge") ?? undefined;
    const method = params.get("code_challenge_method");
    if (codeChallenge !== undefined || method !== null) {
      if (method !== "S256") return fail("invalid_request", "code_challenge_method must be S256");
      if (codeChallenge === undefined || !/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) {
        return fail("invalid_request", "code_challenge must be a base64url SHA-256 digest");
      }
    }
    // Any connector is taken (the id token names it); the seeded data live under the seed's provider id.
    const connector = params.get("connector") ?? SEED_DATA.providerId;
    if (connector === "") return fail("invalid_request", "connector must not be empty");
    const fields: Record<string, string> = {};
    for (const name of AUTH_PARAMS) {
      const value = params.get(name);
      if (value !== null) fields[name] = value;
    }
    return {
      clientId,
      redirectUri,
      state,
      nonce: params.get("nonce") ?? undefined,
      codeChallenge,
      connector,
      loginHint: params.get("login_hint") ?? undefined,
      page: { action: `${this.#path}/auth`, clientId, fields },
    };
  }

  #redirect(redirectUri: string, params: Record<string, string | undefined>): Response {
    const location = new URL(redirectUri);
    for (const [name, value] of Object.entries(params)) if (value !== undefined) location.searchParams.set(name, value);
    location.searchParams.set("iss", this.issuer); // RFC 9207
    return new Response(null, { status: 302, headers: { Location: location.href, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" } });
  }

  #authorizationPage(params: URLSearchParams): Response {
    const request = this.#authorizationRequest(params);
    if (request instanceof Response) return request;
    return signInPage(request.page, this.#config.users, request.loginHint);
  }

  async #authorizationStep(form: URLSearchParams): Promise<Response> {
    const request = this.#authorizationRequest(form);
    if (request instanceof Response) return request;
    const action = form.get("action");
    if (action === "deny") return this.#redirect(request.redirectUri, { error: "access_denied", error_description: "The user denied access", state: request.state });
    if (action === "login") {
      const user = this.#config.users.find((u) => u.username === form.get("username") && u.password === form.get("password"));
      if (!user) return signInPage(request.page, this.#config.users, form.get("username") ?? undefined, "Wrong username or password.");
      const ticket = await this.#ticket(user.username, Date.now() + SIGN_IN_TTL_MS, request);
      return consentPage({ ...request.page, fields: { ...request.page.fields, ticket } }, user.username, user.accounts, ACCOUNT_PRODUCTS);
    }
    if (action === "approve") {
      const user = await this.#ticketUser(form.get("ticket") ?? "", request);
      if (!user) return signInPage(request.page, this.#config.users, request.loginHint, "Your sign-in expired. Please sign in again.");
      const accounts = [...new Set(form.getAll("accounts"))];
      const page = { ...request.page, fields: { ...request.page.fields, ticket: form.get("ticket") as string } };
      if (accounts.length === 0) return consentPage(page, user.username, user.accounts, ACCOUNT_PRODUCTS, "Tick at least one account, or press Deny.");
      const foreign = accounts.find((account) => !user.accounts.includes(account));
      if (foreign !== undefined) return consentPage(page, user.username, user.accounts, ACCOUNT_PRODUCTS, `${foreign} is not one of your accounts.`);
      const code = this.#approve(request, user, accounts);
      return this.#redirect(request.redirectUri, { code, state: request.state });
    }
    return signInPage(request.page, this.#config.users, request.loginHint, "Please sign in, or press Deny.");
  }

  #hmac(text: string): Promise<string> {
    this.#hmacKey ??= globalThis.crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]) as Promise<CryptoKey>;
    return this.#hmacKey
      .then((key) => globalThis.crypto.subtle.sign("HMAC", key, new TextEncoder().encode(text)))
      .then((signature) => base64url(new Uint8Array(signature)));
  }

  /** Proof that `username` signed in for this very authorization request, until `expires`. */
  async #ticket(username: string, expires: number, request: AuthRequest): Promise<string> {
    const claims = base64url(new TextEncoder().encode(JSON.stringify([username, expires])));
    return `${claims}.${await this.#hmac(ticketInput(claims, request))}`;
  }

  async #ticketUser(ticket: string, request: AuthRequest): Promise<SandboxUser | undefined> {
    const [claims = "", signature] = ticket.split(".");
    if (signature !== (await this.#hmac(ticketInput(claims, request)))) return undefined;
    // Signed here, so it is the JSON #ticket wrote.
    const [username, expires] = JSON.parse(new TextDecoder().decode(fromBase64url(claims))) as [string, number];
    if (Date.now() > expires) return undefined;
    return this.#config.users.find((u) => u.username === username);
  }

  /** The approval: a consent grant of the ticked accounts and a code for it. */
  #approve(request: AuthRequest, user: SandboxUser, accounts: string[]): string {
    const consentId = `consent-${globalThis.crypto.randomUUID()}`;
    const grant: ConsentGrant = {
      id: consentId,
      status: "ACTIVE",
      parties: structuredClone(CONSENT_PARTIES),
      createdTime: new Date().toISOString(),
      resources: accounts.map((account) => ({ resourceType: "ACCOUNT", resourceId: account, dataClusters: ["ACCOUNT_BASIC", "STATEMENTS"] })),
    };
    this.#grants.set(consentId, { consentId, clientId: request.clientId, subject: user.username, accounts, connector: request.connector, refreshToken: undefined });
    this.#state.consents.set(consentId, grant);
    this.#boundConsents();

    const now = Date.now();
    for (const [code, record] of this.#codes) if (record.expiresAt <= now) this.#codes.delete(code);
    while (this.#codes.size >= MAX_CODES) this.#codes.delete(this.#codes.keys().next().value as string);
    const code = randomToken();
    this.#codes.set(code, {
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      nonce: request.nonce,
      consentId,
      expiresAt: now + this.#config.codeTtlMs,
    });
    this.#stats.codesIssued++;
    return code;
  }

  /** Keeps at most MAX_CONSENTS consents of this instance: the oldest, with its refresh token, goes. */
  #boundConsents(): void {
    while (this.#state.consents.size > MAX_CONSENTS) {
      const oldest = this.#state.consents.keys().next().value as string;
      this.#state.consents.delete(oldest);
      const grant = this.#grants.get(oldest);
      if (grant?.refreshToken !== undefined) this.#refreshTokens.delete(grant.refreshToken);
      this.#grants.delete(oldest);
    }
  }

  // --- The token and revocation endpoints ----------------------------------------

  /** The client's id when its credentials are right (HTTP Basic or client_secret_post), else the 401/400. */
  #authenticate(request: Request, form: URLSearchParams): string | Response {
    const header = request.headers.get("Authorization");
    const postedSecret = form.get("client_secret");
    let clientId: string | undefined;
    let secret: string | undefined;
    if (header !== null) {
      if (postedSecret !== null) return oauthError(400, "invalid_request", "Use one client authentication method, not two");
      const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
      if (!match) return invalidClient();
      let decoded: string;
      try {
        decoded = atob(match[1] as string);
      } catch {
        return invalidClient();
      }
      const colon = decoded.indexOf(":");
      if (colon < 0) return invalidClient();
      clientId = formDecode(decoded.slice(0, colon));
      secret = formDecode(decoded.slice(colon + 1));
      const posted = form.get("client_id");
      if (posted !== null && posted !== clientId) return invalidClient();
    } else {
      clientId = form.get("client_id") ?? undefined;
      secret = postedSecret ?? undefined;
    }
    if (clientId !== this.#config.clientId || secret !== this.#config.clientSecret) return invalidClient();
    return clientId;
  }

  async #token(request: Request, form: URLSearchParams): Promise<Response> {
    const repeated = [...new Set(form.keys())].find((name) => form.getAll(name).length > 1);
    if (repeated) return oauthError(400, "invalid_request", `The ${repeated} parameter is repeated`);
    const client = this.#authenticate(request, form);
    if (client instanceof Response) return client;
    const grantType = form.get("grant_type");
    if (grantType === "authorization_code") return this.#exchangeCode(form);
    if (grantType === "refresh_token") return this.#refresh(form);
    if (grantType === null) return oauthError(400, "invalid_request", "grant_type is required");
    return oauthError(400, "unsupported_grant_type", `grant_type ${grantType} is not supported`);
  }

  // One client is registered: an authenticated caller is the one the code and tokens were issued to.
  async #exchangeCode(form: URLSearchParams): Promise<Response> {
    const code = form.get("code");
    if (code === null) return oauthError(400, "invalid_request", "code is required");
    const record = this.#codes.get(code);
    // Single use: whatever happens next, this code is spent.
    this.#codes.delete(code);
    const invalid = (description: string) => oauthError(400, "invalid_grant", description);
    if (!record || record.expiresAt <= Date.now()) return invalid("The authorization code is invalid, expired or already used");
    if (form.get("redirect_uri") !== record.redirectUri) return invalid("redirect_uri differs from the authorization request's");
    const verifier = form.get("code_verifier");
    if (record.codeChallenge === undefined) {
      if (verifier !== null) return invalid("code_verifier sent, but the authorization request had no code_challenge");
    } else if (verifier === null || !PKCE_VERIFIER.test(verifier) || (await s256(verifier)) !== record.codeChallenge) {
      return invalid("The code_verifier does not match the code_challenge");
    }
    const grant = this.#grants.get(record.consentId);
    if (!grant || this.#state.consents.get(record.consentId)?.status !== "ACTIVE") return invalid("The consent of this code has ended");
    this.#stats.codesExchanged++;
    return this.#tokens(grant, record.nonce);
  }

  async #refresh(form: URLSearchParams): Promise<Response> {
    const token = form.get("refresh_token");
    if (token === null) return oauthError(400, "invalid_request", "refresh_token is required");
    const consentId = this.#refreshTokens.get(token);
    const grant = consentId === undefined ? undefined : this.#grants.get(consentId);
    if (!grant || this.#state.consents.get(grant.consentId)?.status !== "ACTIVE") {
      this.#stats.refreshesRejected++;
      return oauthError(400, "invalid_request", SPENT_REFRESH_TOKEN);
    }
    this.#stats.refreshes++;
    return this.#tokens(grant, undefined);
  }

  /** New tokens for a grant; the refresh token it had (if any) is spent. */
  async #tokens(grant: GrantRecord, nonce: string | undefined): Promise<Response> {
    if (grant.refreshToken !== undefined) this.#refreshTokens.delete(grant.refreshToken);
    const refreshToken = randomToken();
    grant.refreshToken = refreshToken;
    this.#refreshTokens.set(refreshToken, grant.consentId);
    const now = Date.now();
    const iat = Math.floor(now / 1000);
    const exp = Math.floor((now + this.#config.idTokenTtlMs) / 1000);
    const claims: Record<string, unknown> = {
      iss: this.issuer,
      sub: grant.subject,
      aud: grant.clientId,
      iat,
      exp,
      accounts: grant.accounts,
      connectorId: grant.connector,
      grant_id: grant.consentId,
    };
    if (nonce !== undefined) claims.nonce = nonce;
    const idToken = await this.#signer.sign(claims);
    return json(
      200,
      { id_token: idToken, refresh_token: refreshToken, token_type: "Bearer", expires_in: exp - iat },
      { "Cache-Control": "no-store", Pragma: "no-cache" },
    );
  }

  async #revoke(request: Request, form: URLSearchParams): Promise<Response> {
    const client = this.#authenticate(request, form);
    if (client instanceof Response) return client;
    const token = form.get("token");
    if (token === null) return oauthError(400, "invalid_request", "token is required");
    const consentId = this.#refreshTokens.get(token);
    const grant = consentId === undefined ? undefined : this.#grants.get(consentId);
    // A live refresh token ends its grant; anything else is already unusable (RFC 7009 §2.2: 200 all the same).
    if (grant) {
      this.#refreshTokens.delete(token);
      grant.refreshToken = undefined;
      const consent = this.#state.consents.get(grant.consentId);
      if (consent) consent.status = "REVOKED";
    }
    this.#stats.revocations++;
    return new Response(null, { status: 200, headers: { "Cache-Control": "no-store" } });
  }

  // --- What the rest of the mock asks -----------------------------------------------

  /**
   * Who may make a statement call. The service token (unless user tokens are
   * required): `undefined`. A valid id token of an active consent: its grant.
   * Otherwise the 401 to answer — 602 for a token of this IdP that expired or
   * whose consent ended, and for anything at all when user tokens are required.
   */
  async statementCaller(request: Request, serviceToken: string, requireUserTokens: boolean): Promise<UserGrant | Response | undefined> {
    const bearer = bearerOf(request);
    if (bearer === serviceToken && !requireUserTokens) return undefined;
    if (bearer !== undefined && bearer !== serviceToken) {
      const claims = await this.#signer.verify(bearer);
      if (claims) {
        const consent = this.#state.consents.get(String(claims.grant_id));
        if (typeof claims.exp !== "number" || claims.exp * 1000 <= Date.now() || consent?.status !== "ACTIVE") return customerNotAuthorized();
        return { accounts: claims.accounts as string[] };
      }
    }
    if (requireUserTokens) return customerNotAuthorized();
    return unauthorized(bearer === undefined ? "Missing bearer token" : "Invalid bearer token");
  }

  /** The user revokes at the provider: the consent turns REVOKED, its refresh token dies, subscribers hear of it. */
  revokeConsent(consentId: string): void {
    const seeded = SEED_DATA.consents.find((c) => c.id === consentId);
    const consent = this.#state.consents.get(consentId) ?? (seeded && structuredClone(seeded));
    if (!consent) throw new RangeError(`Unknown consent id ${JSON.stringify(consentId)}`);
    if (consent.status === "REVOKED") return;
    consent.status = "REVOKED";
    if (!this.#state.consents.has(consentId)) {
      this.#state.consents.set(consentId, consent);
      this.#boundConsents();
    }
    const grant = this.#grants.get(consentId);
    if (grant?.refreshToken !== undefined) {
      this.#refreshTokens.delete(grant.refreshToken);
      grant.refreshToken = undefined;
    }
    for (const subscription of this.#state.subscriptions.values()) {
      if (subscription.category !== "CONSENT" || subscription.type !== "CONSENT_REVOKED") continue;
      this.#state.deliveries.enqueue(subscription.subscriptionId as string, subscription.callbackUrl, consentNotification(this.#state, consent, "CONSENT_REVOKED"));
    }
  }

  /**
   * Goes through the authorization pages as a browser would — the sign-in
   * page, the sign-in form, the consent form — and returns where the last
   * answer redirects to: the app's callback URL.
   */
  async authorize(authorizationUrl: string, options: AuthorizeOptions = {}): Promise<string> {
    const url = new URL(authorizationUrl);
    if (!this.serves(url) || url.pathname !== `${this.#path}/auth`) {
      throw new TypeError(`${url.origin}${url.pathname} is not this IdP's authorization endpoint (${this.issuer}/auth)`);
    }
    const post = (fields: [string, string][]) =>
      this.handle(
        new Request(url.origin + url.pathname, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(fields).toString(),
        }),
      );
    const finish = async (response: Response, step: string): Promise<Response> => {
      const location = response.headers.get("Location");
      if (location !== null) return response;
      if (response.status === 200) return response;
      throw new Error(`The sandbox IdP refused ${step}: ${readError(await response.text()) ?? `HTTP ${response.status}`}`);
    };
    let response = await finish(await this.handle(new Request(url)), "the authorization request");
    if (response.status === 302) return response.headers.get("Location") as string;
    const fields = readHiddenFields(await response.text());
    if (options.deny) return (await post([...fields, ["action", "deny"]])).headers.get("Location") as string;

    const username = options.username ?? (this.#config.users[0] as SandboxUser).username;
    const user = this.#config.users.find((u) => u.username === username);
    if (!user) throw new RangeError(`Unknown sandbox user ${JSON.stringify(username)}`);
    response = await finish(await post([...fields, ["username", user.username], ["password", user.password], ["action", "login"]]), "the sign-in");
    const signedIn = readHiddenFields(await response.text());
    const accounts = options.accounts ?? user.accounts;
    response = await finish(await post([...signedIn, ...accounts.map((a): [string, string] => ["accounts", a]), ["action", "approve"]]), "the approval");
    return response.headers.get("Location") as string;
  }
}
