// The sandbox IdP's token, revocation and key endpoints over real HTTP.
import { createHash, randomBytes } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startMockServer } from "../src/index.js";
import { MAX_CODES } from "../src/idp/idp.js";
import { s256 } from "../src/idp/jwt.js";
import { useMockServer } from "./helpers.js";
import { authorizationRequest, CALLBACK, claimsOf, exchange, post, type AuthorizationRequest, type IdpTarget } from "./idp-helpers.js";

const ctx = useMockServer();
/** at_hash for ES256, computed apart from the mock's code. */
const atHash = (accessToken: string) => createHash("sha256").update(accessToken, "ascii").digest().subarray(0, 16).toString("base64url");
const SPENT = '{"error":"invalid_request","error_description":"Refresh token is invalid or has already been claimed by another client."}';

afterEach(() => {
  vi.useRealTimers();
});

/** An approved authorization: the request and the callback's code. */
async function approved(idp: IdpTarget & { authorize: (url: string) => Promise<string> } = ctx.mock, params: Record<string, string | null> = {}) {
  const request = authorizationRequest(idp, params);
  const callback = await idp.authorize(request.url);
  return { request, callback, code: new URL(callback).searchParams.get("code") as string };
}

const codeGrant = (code: string, request: AuthorizationRequest, extra: Record<string, string> = {}) => ({
  grant_type: "authorization_code",
  code,
  redirect_uri: CALLBACK,
  code_verifier: request.verifier,
  ...extra,
});

async function errorOf(response: Response) {
  return [response.status, await response.json()];
}

describe("authorization_code", () => {
  it("answers access_token, token_type, expires_in, scope, id_token and refresh_token, not cached, with client_secret_basic or client_secret_post", async () => {
    for (const auth of ["basic", "post"] as const) {
      const { request, code } = await approved();
      const response = await post(ctx.mock, "token", codeGrant(code, request), auth);
      expect(response.status).toBe(200);
      expect(response.headers.get("Cache-Control")).toBe("no-store");
      const body = await response.json();
      expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "id_token", "refresh_token", "scope", "token_type"]);
      expect(body).toMatchObject({ token_type: "Bearer", expires_in: 86_400, scope: "openid offline_access" });
      // Opaque: 32 random bytes, not a JWT, and new on every answer.
      expect(body.access_token).toMatch(/^[\w-]{43}$/);
      expect(body.access_token).not.toBe(body.refresh_token);
      const claims = claimsOf(body.id_token);
      expect((claims.exp as number) - (claims.iat as number)).toBe(86_400);
      expect(claims.grant_id).toMatch(/^consent-/);
    }
  });

  it("takes a code once: a second exchange is invalid_grant", async () => {
    const { request, code } = await approved();
    const before = ctx.mock.authStats();
    expect((await post(ctx.mock, "token", codeGrant(code, request))).status).toBe(200);
    const again = await post(ctx.mock, "token", codeGrant(code, request));
    expect(await errorOf(again)).toEqual([400, { error: "invalid_grant", error_description: "The authorization code is invalid, expired or already used" }]);
    expect(ctx.mock.authStats().codesExchanged).toBe(before.codesExchanged + 1);
  });

  it("refuses a code past codeTtlMs", async () => {
    const mock = await startMockServer({ codeTtlMs: 60_000 });
    try {
      const { request, code } = await approved(mock);
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now() + 60_001);
      expect((await errorOf(await post(mock, "token", codeGrant(code, request))))[1]).toMatchObject({ error: "invalid_grant" });
    } finally {
      await mock.close();
    }
  });

  it("checks PKCE: a wrong, missing or malformed verifier is invalid_grant, and the code is spent", async () => {
    const otherVerifier = randomBytes(32).toString("base64url");
    for (const verifier of [otherVerifier, undefined, "short"]) {
      const { request, code } = await approved();
      const params = codeGrant(code, request);
      if (verifier === undefined) delete (params as Partial<typeof params>).code_verifier;
      else params.code_verifier = verifier;
      const response = await post(ctx.mock, "token", params);
      expect((await errorOf(response))[1], String(verifier)).toEqual({
        error: "invalid_grant",
        error_description: "The code_verifier does not match the code_challenge",
      });
      // Spent by the failed attempt, even with the right verifier now.
      expect((await post(ctx.mock, "token", codeGrant(code, request))).status).toBe(400);
    }
  });

  it("refuses a code_verifier when the request had no code_challenge (no PKCE downgrade)", async () => {
    const { request, code } = await approved(ctx.mock, { code_challenge: null, code_challenge_method: null });
    const response = await post(ctx.mock, "token", codeGrant(code, request));
    expect((await errorOf(response))[1]).toMatchObject({ error: "invalid_grant" });
  });

  it("checks that redirect_uri equals the authorization request's, port included", async () => {
    for (const redirect of ["http://127.0.0.1:8124/callback", "http://127.0.0.1/callback"]) {
      const { request, code } = await approved();
      const response = await post(ctx.mock, "token", codeGrant(code, request, { redirect_uri: redirect }));
      expect(await errorOf(response)).toEqual([400, { error: "invalid_grant", error_description: "redirect_uri differs from the authorization request's" }]);
    }
  });

  it("answers bad client credentials 401 invalid_client with WWW-Authenticate, before looking at the code", async () => {
    const { request, code } = await approved();
    const target = ctx.mock;
    const attempts = [
      post(target, "token", codeGrant(code, request), { id: target.clientId, secret: "wrong" }),
      post(target, "token", codeGrant(code, request), { id: "other-client", secret: target.clientSecret }),
      post(target, "token", codeGrant(code, request), "none"),
      post(target, "token", { ...codeGrant(code, request), client_id: target.clientId, client_secret: "wrong" }, "none"),
      fetch(`${target.idpUrl}/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: "Basic %%%" },
        body: new URLSearchParams(codeGrant(code, request)),
      }),
      fetch(`${target.idpUrl}/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa("no-colon")}` },
        body: new URLSearchParams(codeGrant(code, request)),
      }),
      fetch(`${target.idpUrl}/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa("%zz:x")}` },
        body: new URLSearchParams(codeGrant(code, request)),
      }),
      fetch(`${target.idpUrl}/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: "Basic Q" },
        body: new URLSearchParams(codeGrant(code, request)),
      }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(401);
      expect(response.headers.get("WWW-Authenticate")).toBe('Basic realm="fdxkit-sandbox"');
      expect((await response.json()).error).toBe("invalid_client");
    }
    // A body client_id that differs from the Basic one is refused too.
    const mismatch = await post(target, "token", { ...codeGrant(code, request), client_id: "someone" });
    expect(mismatch.status).toBe(401);
    // Not consumed by the refusals above.
    expect((await post(target, "token", codeGrant(code, request))).status).toBe(200);
  });

  it("decodes form-urlencoded Basic credentials (RFC 6749 §2.3.1)", async () => {
    const mock = await startMockServer({ clientId: "app one", clientSecret: "s3cr:t+/=" });
    try {
      const { request, code } = await approved(mock);
      expect((await post(mock, "token", codeGrant(code, request))).status).toBe(200);
    } finally {
      await mock.close();
    }
  });

  it("answers malformed requests invalid_request or unsupported_grant_type", async () => {
    const target = ctx.mock;
    const cases: [Response, string][] = [
      [await post(target, "token", {}), "invalid_request"],
      [await post(target, "token", { grant_type: "password" }), "unsupported_grant_type"],
      [await post(target, "token", { grant_type: "authorization_code" }), "invalid_request"],
      [await post(target, "token", { grant_type: "refresh_token" }), "invalid_request"],
      [await post(target, "token", { grant_type: "refresh_token", refresh_token: "x", client_secret: "also" }), "invalid_request"],
      [
        await fetch(`${target.idpUrl}/token`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: `grant_type=refresh_token&refresh_token=a&refresh_token=b&client_id=${target.clientId}&client_secret=${target.clientSecret}`,
        }),
        "invalid_request",
      ],
      [await fetch(`${target.idpUrl}/token`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" }), "invalid_request"],
    ];
    for (const [response, error] of cases) {
      expect(response.status).toBe(400);
      expect((await response.json()).error).toBe(error);
    }
    const huge = await fetch(`${target.idpUrl}/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `grant_type=${"x".repeat(70_000)}`,
    });
    expect(huge.status).toBe(413);
  });

  it("keeps at most MAX_CODES unexchanged codes: the oldest goes first", async () => {
    const mock = await startMockServer({ codeTtlMs: 60_000 });
    try {
      const first = await approved(mock);
      const second = await approved(mock);
      // Fill up with codes nobody exchanges (the internal flow, as mock.authorize runs it).
      for (let i = 0; i < MAX_CODES - 1; i++) await mock.authorize(authorizationRequest(mock).url);
      expect(mock.authStats().codesIssued).toBe(MAX_CODES + 1);
      expect((await post(mock, "token", codeGrant(first.code, first.request))).status).toBe(400);
      expect((await post(mock, "token", codeGrant(second.code, second.request))).status).toBe(200);
    } finally {
      await mock.close();
    }
  });
});

describe("refresh_token", () => {
  it("rotates on every use: the new one works, the spent one gets the exact 400 body", async () => {
    const { request, callback } = await approved();
    const first = await exchange(ctx.mock, callback, request);
    const before = ctx.mock.authStats();
    const second = await post(ctx.mock, "token", { grant_type: "refresh_token", refresh_token: first.refresh_token });
    expect(second.status).toBe(200);
    const rotated = await second.json();
    expect(rotated.refresh_token).not.toBe(first.refresh_token);
    expect(rotated).toMatchObject({ token_type: "Bearer", expires_in: 86_400, access_token: expect.stringMatching(/^[\w-]{43}$/) });
    expect(rotated.access_token).not.toBe(first.access_token);
    // The same sign-in: auth_time and sid carry over; the token is new.
    const [was, now] = [claimsOf(first.id_token), claimsOf(rotated.id_token)];
    expect([now.auth_time, now.sid]).toEqual([was.auth_time, was.sid]);
    expect(now.jti).not.toBe(was.jti);
    expect(now.at_hash).toBe(atHash(rotated.access_token));
    expect(claimsOf(rotated.id_token)).toMatchObject({
      sub: "user_good",
      grant_id: claimsOf(first.id_token).grant_id,
      accounts: ["ACC-1001", "ACC-1002", "ACC-1003"],
    });
    expect(claimsOf(rotated.id_token).nonce).toBeUndefined();

    const spent = await post(ctx.mock, "token", { grant_type: "refresh_token", refresh_token: first.refresh_token }, "post");
    expect(spent.status).toBe(400);
    expect(await spent.text()).toBe(SPENT);
    expect((await post(ctx.mock, "token", { grant_type: "refresh_token", refresh_token: "never-issued" })).status).toBe(400);
    const third = await post(ctx.mock, "token", { grant_type: "refresh_token", refresh_token: rotated.refresh_token });
    expect(third.status).toBe(200);
    const after = ctx.mock.authStats();
    expect([after.refreshes - before.refreshes, after.refreshesRejected - before.refreshesRejected]).toEqual([2, 2]);
  });

  it("answers a refresh with another client's credentials invalid_client", async () => {
    const mock = await startMockServer({ clientId: "app-a" });
    try {
      const { request, callback } = await approved(mock);
      const tokens = await exchange(mock, callback, request);
      const response = await post(
        mock,
        "token",
        { grant_type: "refresh_token", refresh_token: tokens.refresh_token },
        { id: "app-b", secret: mock.clientSecret },
      );
      expect(response.status).toBe(401);
    } finally {
      await mock.close();
    }
  });
});

describe("revocation", () => {
  it("revokes a refresh token (the consent ends with it) and answers 200 for an unknown one", async () => {
    const { request, callback } = await approved();
    const tokens = await exchange(ctx.mock, callback, request);
    const before = ctx.mock.authStats().revocations;
    const revoked = await post(ctx.mock, "revoke", { token: tokens.refresh_token, token_type_hint: "refresh_token" });
    expect(revoked.status).toBe(200);
    expect(await revoked.text()).toBe("");
    const refresh = await post(ctx.mock, "token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token });
    expect([refresh.status, await refresh.text()]).toEqual([400, SPENT]);
    const consent = await (await ctx.api(`/consents/v1/${claimsOf(tokens.id_token).grant_id}`)).json();
    expect(consent.status).toBe("REVOKED");
    expect((await post(ctx.mock, "revoke", { token: "unknown" }, "post")).status).toBe(200);
    expect(ctx.mock.authStats().revocations).toBe(before + 2);
  });

  it("needs client authentication and a token", async () => {
    expect((await post(ctx.mock, "revoke", { token: "x" }, "none")).status).toBe(401);
    const missing = await post(ctx.mock, "revoke", {});
    expect([missing.status, (await missing.json()).error]).toEqual([400, "invalid_request"]);
  });
});

describe("id tokens", () => {
  it("are ES256 JWTs with a kid that verify against the JWKS (Web Crypto), with the claims of §10", async () => {
    const { request, callback } = await approved();
    const { id_token: idToken } = await exchange(ctx.mock, callback, request);
    const [header = "", payload = "", signature = ""] = idToken.split(".");
    const head = JSON.parse(Buffer.from(header, "base64url").toString());
    expect(head).toMatchObject({ alg: "ES256", typ: "JWT", kid: expect.any(String) });
    const keysResponse = await fetch(`${ctx.mock.idpUrl}/keys`);
    const { keys } = await keysResponse.json();
    const jwk = keys.find((k: { kid: string }) => k.kid === head.kid);
    expect(jwk).toMatchObject({ kty: "EC", crv: "P-256", use: "sig", alg: "ES256" });
    expect(jwk.d).toBeUndefined();
    const key = await crypto.subtle.importKey("jwk", jwk, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
    const data = new TextEncoder().encode(`${header}.${payload}`);
    const ok = await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, Buffer.from(signature, "base64url"), data);
    expect(ok).toBe(true);
    const tampered = new TextEncoder().encode(
      `${header}.${Buffer.from(JSON.stringify({ ...claimsOf(idToken), accounts: ["ACC-1004"] })).toString("base64url")}`,
    );
    expect(await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, Buffer.from(signature, "base64url"), tampered)).toBe(false);

    const claims = claimsOf(idToken);
    expect(Object.keys(claims).sort()).toEqual([
      "accounts",
      "at_hash",
      "aud",
      "auth_time",
      "connectorId",
      "exp",
      "grant_id",
      "iat",
      "iss",
      "jti",
      "name",
      "nonce",
      "products",
      "recipientId",
      "sid",
      "sub",
    ]);
    expect(claims).toMatchObject({
      iss: ctx.mock.idpUrl,
      aud: ctx.mock.clientId,
      sub: "user_good",
      name: "user_good",
      nonce: request.nonce,
      products: ["statements"],
      recipientId: "REC-0042",
      accounts: ["ACC-1001", "ACC-1002", "ACC-1003"],
      connectorId: "sandbox-bank",
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      sid: expect.stringMatching(/^[\w-]{22}$/),
    });
    expect(Math.abs((claims.iat as number) - Date.now() / 1000)).toBeLessThan(60);
    expect(claims.auth_time as number).toBeLessThanOrEqual(claims.iat as number);
    expect((claims.iat as number) - (claims.auth_time as number)).toBeLessThan(60);
  });

  it("carry at_hash, the left half of the SHA-256 of the access token they came with (OpenID Connect Core §3.1.3.6)", async () => {
    const { request, callback } = await approved();
    const tokens = await exchange(ctx.mock, callback, request);
    const claims = claimsOf(tokens.id_token);
    expect(claims.at_hash).toBe(atHash(tokens.access_token));
    expect(claims.at_hash).toMatch(/^[\w-]{22}$/);
  });

  it("follow idTokenTtlMs", async () => {
    const mock = await startMockServer({ idTokenTtlMs: 90_000 });
    try {
      const { request, callback } = await approved(mock);
      const tokens = await exchange(mock, callback, request);
      expect(tokens.expires_in).toBe(90);
      const claims = claimsOf(tokens.id_token);
      expect((claims.exp as number) - (claims.iat as number)).toBe(90);
    } finally {
      await mock.close();
    }
  });

  it("differ in key between instances", async () => {
    const other = await startMockServer();
    try {
      const [a, b] = await Promise.all([ctx.mock, other].map(async (m) => (await (await fetch(`${m.idpUrl}/keys`)).json()).keys[0].kid));
      expect(a).not.toBe(b);
    } finally {
      await other.close();
    }
  });
});

it("computes the PKCE S256 challenge as RFC 7636's example does", async () => {
  expect(await s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
});
