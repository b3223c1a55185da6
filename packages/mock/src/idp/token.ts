// The token and revocation endpoints: codes exchanged once (PKCE checked),
// refresh tokens rotated on every use, and each answer carrying an opaque
// access token, a signed id token and a new refresh token — the shape the
// real network's identity provider answers with, so certified OpenID client
// libraries work unchanged.

import { json } from "../errors.js";
import { CONSENT_PARTIES } from "../seed.js";
import type { ConsentGrant } from "../types.js";
import { accessTokenHash, type JwtSigner, randomToken, s256 } from "./jwt.js";
import { authenticateClient, type ClientCredentials, oauthError } from "./oauth.js";
import type { GrantRecord, IdpStore } from "./store.js";

/** The exact answer the real service gives to a spent refresh token (and to every refused refresh). */
const SPENT_REFRESH_TOKEN = "Refresh token is invalid or has already been claimed by another client.";
const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** The products a sandbox approval grants, as the id token names them. */
const PRODUCTS = ["statements"];
/** The data recipient of every sandbox consent (the app), as the id token names it. */
const RECIPIENT_ID = CONSENT_PARTIES.find((party) => party.type === "DATA_RECIPIENT")?.registeredEntityId ?? "";

export interface TokenConfig extends ClientCredentials {
  /** What id tokens name as `iss`. */
  issuer: string;
  /** Lifetime of id tokens and access tokens. */
  idTokenTtlMs: number;
}

/** `POST /token` and `POST /revoke` of one IdP. */
export class TokenEndpoints {
  readonly #config: TokenConfig;
  readonly #store: IdpStore;
  readonly #signer: JwtSigner;

  constructor(config: TokenConfig, store: IdpStore, signer: JwtSigner) {
    this.#config = config;
    this.#store = store;
    this.#signer = signer;
  }

  async token(request: Request, form: URLSearchParams): Promise<Response> {
    const repeated = [...new Set(form.keys())].find((name) => form.getAll(name).length > 1);
    if (repeated) return oauthError(400, "invalid_request", `The ${repeated} parameter is repeated`);
    const client = authenticateClient(request, form, this.#config);
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
    const record = this.#store.codes.get(code);
    // Single use: whatever happens next, this code is spent.
    this.#store.codes.delete(code);
    const invalid = (description: string) => oauthError(400, "invalid_grant", description);
    if (!record || record.expiresAt <= Date.now()) return invalid("The authorization code is invalid, expired or already used");
    if (form.get("redirect_uri") !== record.redirectUri) return invalid("redirect_uri differs from the authorization request's");
    const verifier = form.get("code_verifier");
    if (record.codeChallenge === undefined) {
      if (verifier !== null) return invalid("code_verifier sent, but the authorization request had no code_challenge");
    } else if (verifier === null || !PKCE_VERIFIER.test(verifier) || (await s256(verifier)) !== record.codeChallenge) {
      return invalid("The code_verifier does not match the code_challenge");
    }
    const grant = this.#store.grants.get(record.consentId);
    if (!grant || !this.#store.isActive(record.consentId)) return invalid("The consent of this code has ended");
    this.#store.stats.codesExchanged++;
    return this.#tokens(grant, record.nonce);
  }

  async #refresh(form: URLSearchParams): Promise<Response> {
    const token = form.get("refresh_token");
    if (token === null) return oauthError(400, "invalid_request", "refresh_token is required");
    const consentId = this.#store.refreshTokens.get(token);
    const grant = consentId === undefined ? undefined : this.#store.grants.get(consentId);
    if (!grant || !this.#store.isActive(grant.consentId)) {
      this.#store.stats.refreshesRejected++;
      return oauthError(400, "invalid_request", SPENT_REFRESH_TOKEN);
    }
    this.#store.stats.refreshes++;
    return this.#tokens(grant, undefined);
  }

  /** New tokens for a grant; the refresh token it had (if any) is spent. */
  async #tokens(grant: GrantRecord, nonce: string | undefined): Promise<Response> {
    this.#store.dropRefreshToken(grant);
    const refreshToken = randomToken();
    grant.refreshToken = refreshToken;
    this.#store.refreshTokens.set(refreshToken, grant.consentId);
    const now = Date.now();
    const iat = Math.floor(now / 1000);
    const exp = Math.floor((now + this.#config.idTokenTtlMs) / 1000);
    const accessToken = randomToken();
    // Both tokens end at the same second, the one expires_in announces.
    this.#store.addAccessToken(accessToken, { consentId: grant.consentId, accounts: grant.accounts, expiresAt: exp * 1000 });
    const claims: Record<string, unknown> = {
      iss: this.#config.issuer,
      sub: grant.subject,
      aud: grant.clientId,
      iat,
      exp,
      auth_time: grant.authTime,
      accounts: grant.accounts,
      connectorId: grant.connector,
      grant_id: grant.consentId,
      products: PRODUCTS,
      recipientId: RECIPIENT_ID,
      name: grant.subject,
      sid: grant.sessionId,
      jti: globalThis.crypto.randomUUID(),
      at_hash: await accessTokenHash(accessToken),
    };
    if (nonce !== undefined) claims.nonce = nonce;
    const idToken = await this.#signer.sign(claims);
    return json(
      200,
      { access_token: accessToken, token_type: "Bearer", expires_in: exp - iat, scope: grant.scope, id_token: idToken, refresh_token: refreshToken },
      { "Cache-Control": "no-store", Pragma: "no-cache" },
    );
  }

  async revoke(request: Request, form: URLSearchParams): Promise<Response> {
    const client = authenticateClient(request, form, this.#config);
    if (client instanceof Response) return client;
    const token = form.get("token");
    if (token === null) return oauthError(400, "invalid_request", "token is required");
    const consentId = this.#store.refreshTokens.get(token);
    const grant = consentId === undefined ? undefined : this.#store.grants.get(consentId);
    // A live refresh token ends its grant; an access token ends alone; anything
    // else is already unusable (RFC 7009 §2.2: 200 all the same).
    if (grant) {
      this.#store.dropRefreshToken(grant);
      // A grant and its consent are kept and dropped together.
      (this.#store.state.consents.get(grant.consentId) as ConsentGrant).status = "REVOKED";
    }
    this.#store.accessTokens.delete(token);
    this.#store.stats.revocations++;
    return new Response(null, { status: 200, headers: { "Cache-Control": "no-store" } });
  }
}
