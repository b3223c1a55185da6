// A recipe: the sandbox IdP used by openid-client 6, an OpenID-certified
// relying party, exactly as its documentation shows it — no wrapper, no
// patched fetch. The one setting beyond the defaults is
// `allowInsecureRequests`, because the sandbox listens on plain http on
// 127.0.0.1. The user's browser is played by `Browser` (idp-helpers.ts): it
// keeps the IdP's cookies, posts the pages' forms and stops at each redirect.
import * as client from "openid-client";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startMockServer, type MockServer } from "../src/index.js";
import { Browser, CALLBACK } from "./idp-helpers.js";

let mock: MockServer;
let config: client.Configuration;

beforeAll(async () => {
  mock = await startMockServer({ requireUserTokens: true });
  // Discovery: the issuer URL, the client id, and how the client authenticates (HTTP Basic).
  config = await client.discovery(new URL(mock.idpUrl), mock.clientId, undefined, client.ClientSecretBasic(mock.clientSecret), {
    execute: [client.allowInsecureRequests],
  });
  // Check every id token's signature against the IdP's JWKS, not only the claims.
  client.enableNonRepudiationChecks(config);
});
afterAll(() => mock?.close());
afterEach(() => {
  vi.useRealTimers();
});

/** What the app keeps in the user's session while the browser is at the IdP. */
interface PendingAuthorization {
  url: URL;
  verifier: string;
  state: string;
  nonce: string;
}

/** The app builds the authorization URL: PKCE, state and nonce, and `prompt=consent` so `offline_access` is granted. */
async function startAuthorization(extra: Record<string, string> = {}): Promise<PendingAuthorization> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: "openid offline_access",
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
    prompt: "consent",
    ...extra,
  });
  return { url, verifier, state, nonce };
}

/** The user in their browser: open the URL, sign in when asked, approve; where the IdP sends the browser back. */
async function approve(browser: Browser, pending: PendingAuthorization): Promise<{ callback: URL; signedIn: boolean }> {
  let page = await browser.fetch(pending.url);
  expect(page.status).toBe(200);
  let html = await page.text();
  const signedIn = html.includes('name="password"');
  if (signedIn) {
    page = await browser.submit(pending.url.href, html, { username: "user_good", password: "pass_good" }, "login");
    expect(page.status).toBe(200);
    html = await page.text();
  }
  const approved = await browser.submit(pending.url.href, html, {}, "approve");
  expect([302, 303]).toContain(approved.status);
  return { callback: new URL(approved.headers.get("Location") as string), signedIn };
}

/** The app's callback: openid-client checks state, iss, PKCE, the id token (signature, nonce, max_age) and the answer's shape. */
function finish(callback: URL, pending: PendingAuthorization, maxAge?: number) {
  return client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: pending.verifier,
    expectedState: pending.state,
    expectedNonce: pending.nonce,
    ...(maxAge === undefined ? {} : { maxAge }),
  });
}

describe("openid-client against the sandbox IdP", () => {
  it("discovers the IdP's endpoints", () => {
    const server = config.serverMetadata();
    expect(server.issuer).toBe(mock.idpUrl);
    expect(server.token_endpoint).toBe(`${mock.idpUrl}/token`);
    expect(server.revocation_endpoint).toBe(`${mock.idpUrl}/revoke`);
    expect(server.authorization_response_iss_parameter_supported).toBe(true);
  });

  it("signs in and approves in a browser, exchanges the code, reads statements with the access token, refreshes three times, revokes", async () => {
    const pending = await startAuthorization();
    const { callback, signedIn } = await approve(new Browser(), pending);
    expect(signedIn).toBe(true);
    expect(callback.searchParams.get("iss")).toBe(mock.idpUrl);

    const tokens = await finish(callback, pending);
    expect(tokens.token_type).toBe("bearer"); // openid-client lowercases it
    // A second may tick between the answer and this line.
    expect(tokens.expiresIn()).toBeGreaterThanOrEqual(86_399);
    expect(tokens.expiresIn()).toBeLessThanOrEqual(86_400);
    const claims = tokens.claims();
    expect(claims).toMatchObject({
      iss: mock.idpUrl,
      aud: mock.clientId,
      sub: "user_good",
      nonce: pending.nonce,
      accounts: ["ACC-1001", "ACC-1002", "ACC-1003"],
    });
    expect(claims?.at_hash).toEqual(expect.any(String));

    // The access token is the bearer of the user's data calls.
    const statements = new URL(`${mock.productsUrl}/statements/v2/${mock.seed.providerId}/ACC-1001?limit=1`);
    const data = await client.fetchProtectedResource(config, tokens.access_token, statements, "GET");
    expect(data.status).toBe(200);

    // Three refreshes; each rotates the refresh token, and a spent one is refused.
    let refreshToken = tokens.refresh_token as string;
    for (let i = 0; i < 3; i++) {
      const next = await client.refreshTokenGrant(config, refreshToken);
      expect(next.refresh_token).not.toBe(refreshToken);
      expect(next.claims()).toMatchObject({ sub: "user_good", grant_id: claims?.grant_id, auth_time: claims?.auth_time });
      const spent = await client.refreshTokenGrant(config, refreshToken).catch((error: unknown) => error);
      expect(spent).toBeInstanceOf(client.ResponseBodyError);
      expect(spent).toMatchObject({
        status: 400,
        error: "invalid_request",
        error_description: "Refresh token is invalid or has already been claimed by another client.",
      });
      refreshToken = next.refresh_token as string;
    }

    // Revocation ends the consent: the refresh token is refused, and the data
    // calls answer 401 602 with a Bearer challenge, which openid-client raises.
    await client.tokenRevocation(config, refreshToken);
    await expect(client.refreshTokenGrant(config, refreshToken)).rejects.toMatchObject({ error: "invalid_request" });
    const after = await client.fetchProtectedResource(config, tokens.access_token, statements, "GET").catch((error: unknown) => error);
    expect(after).toBeInstanceOf(client.WWWAuthenticateChallengeError);
    const challenge = after as client.WWWAuthenticateChallengeError;
    expect(challenge.cause[0]).toMatchObject({ scheme: "bearer", parameters: { error: "invalid_token" } });
    expect([challenge.response.status, await challenge.response.json()]).toEqual([401, { code: 602, message: "Customer not authorized" }]);
  });

  it("prompt=none without a signed-in browser: openid-client reports login_required", async () => {
    const pending = await startAuthorization({ prompt: "none" });
    const answer = await new Browser().fetch(pending.url);
    expect(answer.status).toBe(302);
    const error = await finish(new URL(answer.headers.get("Location") as string), pending).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(client.AuthorizationResponseError);
    expect(error).toMatchObject({ error: "login_required" });
  });

  it("max_age: a recent sign-in is reused and auth_time checked; an older one must sign in again", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const browser = new Browser();
    const first = await startAuthorization({ max_age: "300" });
    const signIn = await approve(browser, first);
    expect(signIn.signedIn).toBe(true);
    const authTime = (await finish(signIn.callback, first, 300)).claims()?.auth_time as number;
    expect(Math.abs(authTime - Date.now() / 1000)).toBeLessThan(5);

    // Two minutes later, within max_age: the browser's session is used, no sign-in page.
    vi.setSystemTime(Date.now() + 120_000);
    const second = await startAuthorization({ max_age: "300" });
    const reused = await approve(browser, second);
    expect(reused.signedIn).toBe(false);
    expect((await finish(reused.callback, second, 300)).claims()?.auth_time).toBe(authTime);

    // Ten minutes after the sign-in, past max_age: the user signs in again, and auth_time moves.
    vi.setSystemTime(Date.now() + 480_000);
    const third = await startAuthorization({ max_age: "300" });
    const again = await approve(browser, third);
    expect(again.signedIn).toBe(true);
    expect((await finish(again.callback, third, 300)).claims()?.auth_time).toBeGreaterThanOrEqual(authTime + 600);
  });
});

describe("a path issuer (idpIssuer, as the real network's sandbox names itself)", () => {
  // openid-client takes an issuer to be a URL: it fails reading "/sandbox"
  // as one, before it would compare it with the URL it asked (RFC 8414 §3.3).
  // An app that must accept a path issuer needs a client that allows it, as
  // the fdxkit SDK does with `expectedIssuer`.
  it("is refused by openid-client's discovery: a TypeError, Invalid URL", async () => {
    const network = await startMockServer({ idpIssuer: "/sandbox" });
    try {
      const metadata = await (await fetch(`${network.idpUrl}/.well-known/openid-configuration`)).json();
      expect(metadata.issuer).toBe("/sandbox");
      const refused = await client
        .discovery(new URL(network.idpUrl), network.clientId, undefined, client.ClientSecretBasic(network.clientSecret), {
          execute: [client.allowInsecureRequests],
        })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(TypeError);
      expect(refused).toMatchObject({ code: "ERR_INVALID_URL", message: "Invalid URL" });
    } finally {
      await network.close();
    }
  });
});
