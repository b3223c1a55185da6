import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAuthClient, FdxAuthError, type AuthClient } from "../../src/auth/index.js";
import { isSafeEndpoint } from "../../src/auth/auth-client.js";
import { FdxApiError, FdxError, FdxResponseError, FdxTimeoutError, FdxValidationError } from "../../src/index.js";
import { rejectionOf } from "../support/http.js";
import { CLIENT_ID, CLIENT_SECRET, ISSUER, REDIRECT_URI, expectClean, jwt, renderings, startIdp, type TestIdp } from "../support/idp.js";

let idp: TestIdp;
beforeAll(async () => {
  idp = await startIdp();
});
afterAll(() => idp.close());
const make = (extra: Partial<Parameters<typeof createAuthClient>[0]> = {}) =>
  createAuthClient({ issuer: idp.url, expectedIssuer: ISSUER, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI, ...extra });
// Each test makes its own default client, in the test and not in a hook: if createAuthClient
// refused good options, each test would fail on it, where a failing beforeAll only skips the
// file's tests (which mutation testing counts as passed); and a client made outside a test is
// code no test covers, so mutation testing would not run the tests that use it.
let shared: AuthClient | undefined;
const auth = () => (shared ??= make());
afterEach(() => {
  shared = undefined;
  idp.override = undefined;
  idp.extraClaims = {};
  idp.extraAnswer = {};
  idp.accessTokenTtlS = undefined;
  idp.bodies.length = 0;
  idp.headers.length = 0;
});

const s256 = async (v: string) => Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(v))).toString("base64url");

/** A typed error whose every rendering is free of every secret of the flow. */
/** The IdP's token endpoint answers this, and its other endpoints as usual. */
function answerToken(status: number, body: string, type = "application/json") {
  idp.override = ({ path }, res) => (path === "/token" ? (res.writeHead(status, { "content-type": type }).end(body), true) : false);
}

async function expectCleanError(error: unknown, secrets: string[]) {
  expect(error).toBeInstanceOf(FdxError);
  expectClean(await renderings(error), [
    CLIENT_SECRET,
    Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`).toString("base64"),
    ...secrets,
  ]);
}

describe("authorizationUrl", () => {
  it("sends response_type, the configured redirect_uri, a fresh 256-bit state and nonce, and a PKCE S256 challenge", async () => {
    const a = await auth().authorizationUrl({ connector: "mikomo", prompt: "consent", loginHint: "jo", extraParams: { ui_locales: "fr" } });
    const b = await auth().authorizationUrl({ connector: "mikomo" });
    const url = new URL(a.url);
    expect(url.origin + url.pathname).toBe(`${idp.url}/auth`);
    const q = url.searchParams;
    expect(Object.fromEntries(q)).toEqual({
      ui_locales: "fr",
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      scope: "openid offline_access",
      state: a.state,
      nonce: a.nonce,
      code_challenge: await s256(a.codeVerifier),
      code_challenge_method: "S256",
      connector: "mikomo",
      prompt: "consent",
      login_hint: "jo",
    });
    for (const value of [a.state, a.nonce, a.codeVerifier]) expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.codeVerifier).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
    expect(new Set([a.state, a.nonce, a.codeVerifier, b.state, b.nonce, b.codeVerifier]).size).toBe(6);
    expect(new URL(b.url).searchParams.get("prompt")).toBe("consent");
    expect(new URL(b.url).searchParams.has("login_hint")).toBe(false);
  });

  it("reads the discovery document once", async () => {
    const fresh = make();
    const before = idp.stats.discoveries;
    await fresh.authorizationUrl({ connector: "x" });
    await fresh.authorizationUrl({ connector: "x" });
    expect(await fresh.issuer()).toBe(ISSUER);
    expect(idp.stats.discoveries - before).toBe(1);
  });

  it("finds the discovery document under an issuer with a trailing slash", async () => {
    expect(await make({ issuer: `${idp.url}/` }).issuer()).toBe(ISSUER);
  });

  it("reads discovery again after a failed read", async () => {
    const fresh = make();
    idp.override = ({ path }, res) => (path.startsWith("/.well-known") ? (res.writeHead(503).end(), true) : false);
    expect(await rejectionOf(fresh.issuer())).toBeInstanceOf(FdxApiError);
    idp.override = undefined;
    expect(await fresh.issuer()).toBe(ISSUER);
  });

  it("takes a scope list and refuses bad input before anything is sent", async () => {
    const a = await auth().authorizationUrl({ connector: "c", scope: ["openid"] });
    expect(new URL(a.url).searchParams.get("scope")).toBe("openid");
    for (const bad of [
      { connector: "" },
      { connector: "c", scope: [""] },
      { connector: "c", scope: "openid" },
      { connector: "c", loginHint: 2 },
      { connector: "c", scope: ["a b"] },
      { connector: "c", scope: ["openid", 5] },
      { connector: "c", scope: ["openid", ""] },
      { connector: "c", extraParams: { state: "x" } },
      { connector: "c", prompt: 1 },
      { connector: "c", extraParams: { x: 1 } },
    ]) {
      expect(await rejectionOf(auth().authorizationUrl(bad as never))).toBeInstanceOf(FdxValidationError);
    }
  });
});

describe("createAuthClient options", () => {
  it("refuses endpoints that are not https (http only to loopback), and other bad options", () => {
    const base = { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI };
    expect(() => createAuthClient({ ...base, issuer: "http://idp.example.com" })).toThrow(FdxValidationError);
    expect(() => createAuthClient({ ...base, issuer: "https://idp.example.com", clientSecret: "" })).toThrow(/clientSecret/);
    expect(() => createAuthClient({ ...base, issuer: "https://idp.example.com", redirectUri: "/cb" })).toThrow(/redirectUri/);
    expect(() => createAuthClient({ ...base, issuer: "https://idp.example.com", timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => createAuthClient({ ...base, issuer: "https://idp.example.com", tokenEndpointAuth: "none" as never })).toThrow(/tokenEndpointAuth/);
    expect(() => createAuthClient({ ...base, issuer: "https://idp.example.com", expectedIssuer: "" })).toThrow(/expectedIssuer/);
    expect(() =>
      createAuthClient({
        ...base,
        issuer: "/sandbox",
        endpoints: { authorization: "https://a.example/auth", token: "http://a.example/token", revocation: "ftp://x" },
      }),
    ).toThrow(/endpoints\.token.*endpoints\.revocation|endpoints\.revocation.*endpoints\.token/s);
    expect(() => createAuthClient({ ...base, issuer: "https://u:p@idp.example.com" })).toThrow(FdxValidationError);
    const endpoints = { authorization: "https://a.example/auth", token: "https://a.example/token" };
    expect(() => createAuthClient({ ...base, issuer: "", endpoints })).toThrow(/issuer/);
    expect(() => createAuthClient({ ...base, issuer: "", expectedIssuer: "/x", endpoints })).not.toThrow();
    for (const host of ["http://127.0.0.1.evil.example", "http://localhost.evil.example", "http://10.0.0.1", "http://[::2]"]) {
      expect(() => createAuthClient({ ...base, issuer: host })).toThrow(/issuer/);
    }
    for (const host of ["http://127.0.0.1:1", "http://localhost:1", "http://[::1]:1", "https://idp.example.com"]) {
      expect(() => createAuthClient({ ...base, issuer: host })).not.toThrow();
    }
  });

  it("refuses a discovery document with an endpoint that is not https, or no issuer", async () => {
    idp.override = ({ path }, res) => {
      if (!path.startsWith("/.well-known")) return false;
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ authorization_endpoint: "http://evil.example/auth", token_endpoint: `${idp.url}/token`, revocation_endpoint: "x" }));
      return true;
    };
    const error = (await rejectionOf(make().authorizationUrl({ connector: "c" }))) as FdxResponseError;
    expect(error).toBeInstanceOf(FdxResponseError);
    expect(error.issues.map((i) => i.path).sort()).toEqual(["authorization_endpoint", "issuer", "revocation_endpoint"]);
    idp.override = ({ path }, res) => (path.startsWith("/.well-known") ? (res.writeHead(200, { "content-type": "application/json" }).end("[1]"), true) : false);
    expect(await rejectionOf(make().issuer())).toBeInstanceOf(FdxResponseError);
  });

  it("uses given endpoints without discovery, with expectedIssuer (else issuer) as the id tokens' iss", async () => {
    const endpoints = { authorization: `${idp.url}/auth`, token: `${idp.url}/token`, revocation: `${idp.url}/revoke` };
    const before = idp.stats.discoveries;
    const direct = createAuthClient({ issuer: ISSUER, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI, endpoints });
    expect(await direct.issuer()).toBe(ISSUER);
    const req = await direct.authorizationUrl({ connector: "c" });
    const set = await direct.exchangeCode(idp.callback(req.url), req);
    expect(set.subject).toBe("user-sub-1");
    expect(idp.stats.discoveries).toBe(before);
    const other = createAuthClient({
      issuer: "ignored",
      expectedIssuer: "/other",
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: REDIRECT_URI,
      endpoints,
    });
    const req2 = await other.authorizationUrl({ connector: "c" });
    const callback = new URL(idp.callback(req2.url));
    callback.searchParams.delete("iss");
    const error = (await rejectionOf(other.exchangeCode(callback.href, req2))) as FdxAuthError;
    expect(error.error).toBe("invalid_id_token");
    const noRevoke = createAuthClient({
      issuer: ISSUER,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: REDIRECT_URI,
      endpoints: { ...endpoints, revocation: undefined },
    });
    expect(await rejectionOf(noRevoke.revoke("rt"))).toBeInstanceOf(FdxValidationError);
  });
});

describe("exchangeCode", () => {
  it("exchanges the code with HTTP Basic (id and secret form-encoded first) and the configured redirect_uri", async () => {
    const req = await auth().authorizationUrl({ connector: "mikomo" });
    // The browser came back on another path and port: the redirect_uri sent is still the configured one.
    const landed = new URL(idp.callback(req.url, { accounts: ["a1", "a2"], grantId: "consent-9" }));
    const callback = `http://127.0.0.1:8080/elsewhere${landed.search}`;
    const set = await auth().exchangeCode(callback, req);
    expect(set).toMatchObject({ subject: "user-sub-1", accounts: ["a1", "a2"], connector: "mikomo", consentId: "consent-9" });
    expect(set.claims.nonce).toBe(req.nonce);
    expect(set.expiresAt).toBe((set.claims.exp as number) * 1000);
    expect(set.refreshToken).toMatch(/^rt-/);
    const form = new URLSearchParams(idp.bodies.at(-1));
    expect(Object.fromEntries(form)).toEqual({
      grant_type: "authorization_code",
      code: landed.searchParams.get("code"),
      redirect_uri: REDIRECT_URI,
      code_verifier: req.codeVerifier,
    });
    expect(idp.headers.at(-1)!["content-type"]).toBe("application/x-www-form-urlencoded");
    // The IdP is no FDX API: no FAPI interaction id goes to it.
    expect(idp.headers.at(-1)!["x-fapi-interaction-id"]).toBeUndefined();
    expect(idp.headers.at(-1)!.authorization).toBe(
      `Basic ${Buffer.from(`${encodeURIComponent(CLIENT_ID).replace(/%20/g, "+")}:${new URLSearchParams([["", CLIENT_SECRET]]).toString().slice(1)}`).toString("base64")}`,
    );
  });

  it("puts the client credentials in the body with client_secret_post", async () => {
    const post = make({ tokenEndpointAuth: "client_secret_post" });
    const req = await post.authorizationUrl({ connector: "c" });
    await post.exchangeCode(idp.callback(req.url), req);
    expect(idp.headers.at(-1)!.authorization ?? "").toBe("");
    const form = new URLSearchParams(idp.bodies.at(-1));
    expect(form.get("client_id")).toBe(CLIENT_ID);
    expect(form.get("client_secret")).toBe(CLIENT_SECRET);
  });

  it("with client_secret_post, an error answer that echoes the form shows no client secret", async () => {
    const post = make({ tokenEndpointAuth: "client_secret_post" });
    const req = await post.authorizationUrl({ connector: "c" });
    const callback = idp.callback(req.url);
    await post.exchangeCode(callback, req);
    // The code is spent: the hostile IdP's invalid_grant repeats the whole form, client_secret included.
    const error = await rejectionOf(post.exchangeCode(callback, req));
    expect(error).toMatchObject({ error: "invalid_grant", status: 400, errorDescription: expect.stringContaining("client_secret=[redacted]") });
    await expectCleanError(error, [req.codeVerifier]);
  });

  it("takes a token answer with no access_token, and keeps a connector-less, grant-less token's optional fields out", async () => {
    idp.extraClaims = { connectorId: undefined, grant_id: undefined, accounts: "not a list" };
    idp.extraAnswer = { access_token: undefined, expires_in: undefined };
    const req = await auth().authorizationUrl({ connector: "c" });
    const set = await auth().exchangeCode(idp.callback(req.url), req);
    expect(set).toMatchObject({ accessToken: "", accessTokenExpiresAt: 0 });
    expect("connector" in set).toBe(false);
    expect("consentId" in set).toBe(false);
    expect(set.accounts).toEqual([]);
  });

  it("checks the nonce only when given", async () => {
    const req = await auth().authorizationUrl({ connector: "c" });
    const set = await auth().exchangeCode(idp.callback(req.url), { state: req.state, codeVerifier: req.codeVerifier });
    expect(set.subject).toBe("user-sub-1");
    const req2 = await auth().authorizationUrl({ connector: "c" });
    const error = await rejectionOf(auth().exchangeCode(idp.callback(req2.url), { ...req2, nonce: "another-nonce-value" }));
    expect(error).toMatchObject({ error: "invalid_id_token", errorDescription: expect.stringContaining("nonce") });
    await expectCleanError(error, [req2.codeVerifier, req2.nonce, "another-nonce-value"]);
  });

  it("requires state and codeVerifier", async () => {
    for (const checks of [{ state: "", codeVerifier: "v" }, { state: "s", codeVerifier: "" }, { state: "s", codeVerifier: "v", nonce: "" }, undefined]) {
      const error = await rejectionOf(auth().exchangeCode("http://127.0.0.1/cb?code=1&state=s", checks as never));
      expect(error).toBeInstanceOf(FdxAuthError);
      expect(error).toMatchObject({ error: "invalid_request", status: undefined });
    }
    expect(idp.bodies).toHaveLength(0);
  });
});

describe("bad input: a typed error, no secret, and no request where none is due", () => {
  const flow = async () => {
    const req = await auth().authorizationUrl({ connector: "c" });
    const callback = new URL(idp.callback(req.url));
    return { req, callback, code: callback.searchParams.get("code")!, secrets: [req.codeVerifier, req.nonce, callback.searchParams.get("code")!] };
  };
  const callbackError = async (mutate: (url: URL) => void, expected: Record<string, unknown>) => {
    const { req, callback, secrets } = await flow();
    mutate(callback);
    const error = await rejectionOf(auth().exchangeCode(callback.href, req));
    expect(error).toBeInstanceOf(FdxAuthError);
    expect(error).toMatchObject({ status: undefined, ...expected });
    await expectCleanError(error, secrets);
    expect(idp.bodies).toHaveLength(0);
  };

  it("a callback whose state differs", () => callbackError((u) => u.searchParams.set("state", "forged"), { error: "invalid_state" }));
  it("a callback with two states (even if one matches)", () => callbackError((u) => u.searchParams.append("state", "forged"), { error: "invalid_state" }));
  it("a callback with no state", () => callbackError((u) => u.searchParams.delete("state"), { error: "invalid_state" }));
  it("an error callback with a wrong state is a state error first", () =>
    callbackError(
      (u) => {
        u.searchParams.set("error", "access_denied");
        u.searchParams.set("state", "forged");
      },
      { error: "invalid_state" },
    ));
  it("error=access_denied", () =>
    callbackError(
      (u) => {
        u.searchParams.set("error", "access_denied");
        u.searchParams.set("error_description", "The user said no");
      },
      { error: "access_denied", errorDescription: "The user said no" },
    ));
  it("an error callback that echoes the code", async () => {
    const { req, callback, code, secrets } = await flow();
    callback.searchParams.set("error", `server_error ${code}`);
    callback.searchParams.set("error_description", `code ${code} verifier ${req.codeVerifier}`);
    const error = await rejectionOf(auth().exchangeCode(callback.href, req));
    expect(error).toMatchObject({ error: "server_error [redacted]" });
    await expectCleanError(error, secrets);
  });
  it("error=access_denied without a description", () =>
    callbackError((u) => u.searchParams.set("error", "access_denied"), { error: "access_denied", errorDescription: undefined }));
  it("two codes", () => callbackError((u) => u.searchParams.append("code", "another"), { error: "invalid_callback" }));
  it("an empty code", () => callbackError((u) => u.searchParams.set("code", ""), { error: "invalid_callback" }));
  it("an iss (RFC 9207) that is not the issuer", () => callbackError((u) => u.searchParams.set("iss", "https://evil.example"), { error: "invalid_issuer" }));
  it("two iss parameters", () => callbackError((u) => u.searchParams.append("iss", ISSUER), { error: "invalid_issuer" }));
  it("no code", () => callbackError((u) => u.searchParams.delete("code"), { error: "invalid_callback" }));
  it("a callback that is not a URL", async () => {
    const { req } = await flow();
    expect(await rejectionOf(auth().exchangeCode("not a url", req))).toMatchObject({ error: "invalid_callback" });
  });

  const tokenError = async (
    setup: (f: Awaited<ReturnType<typeof flow>>) => void | Promise<void>,
    check: (error: unknown) => void,
    checks?: (f: Awaited<ReturnType<typeof flow>>) => { state: string; codeVerifier: string; nonce?: string },
  ) => {
    const f = await flow();
    await setup(f);
    const error = await rejectionOf(auth().exchangeCode(f.callback.href, checks ? checks(f) : f.req));
    check(error);
    await expectCleanError(error, f.secrets);
    return error;
  };

  it("a long error description is cut in the message, whole in the field", async () => {
    const f = await flow();
    const long = "d".repeat(1000);
    answerToken(400, JSON.stringify({ error: "invalid_grant", error_description: long }));
    const error = (await rejectionOf(auth().exchangeCode(f.callback.href, f.req))) as FdxAuthError;
    expect(error.message).toHaveLength(200);
    expect(error.message.endsWith("…")).toBe(true);
    expect(error.errorDescription).toBe(long);
  });
  it("a reused code", async () => {
    const f = await flow();
    await auth().exchangeCode(f.callback.href, f.req);
    const error = await rejectionOf(auth().exchangeCode(f.callback.href, f.req));
    expect(error).toMatchObject({ error: "invalid_grant", status: 400 });
    expect((error as FdxAuthError).errorDescription).toContain("[redacted]");
    await expectCleanError(error, f.secrets);
  });
  it("a wrong code verifier", async () => {
    const other = "x".repeat(43);
    const error = await tokenError(
      () => undefined,
      (e) => expect(e).toMatchObject({ error: "invalid_grant", status: 400 }),
      (f) => ({ ...f.req, codeVerifier: other }),
    );
    await expectCleanError(error, [other]);
  });
  it("a wrong client secret", async () => {
    const wrong = make({ clientSecret: "wrong-secret-value" });
    const req = await wrong.authorizationUrl({ connector: "c" });
    const error = await rejectionOf(wrong.exchangeCode(idp.callback(req.url), req));
    expect(error).toMatchObject({ error: "invalid_client", status: 401 });
    expectClean(await renderings(error), ["wrong-secret-value", req.codeVerifier, btoa(`${encodeURIComponent(CLIENT_ID)}:wrong-secret-value`)]);
  });
  const answer = (status: number, type: string, body: string) => () => answerToken(status, body, type);
  it("an IdP that answers HTML (200)", () => tokenError(answer(200, "text/html", "<html>sign in</html>"), (e) => expect(e).toBeInstanceOf(FdxResponseError)));
  it("an IdP that answers HTML (502)", () =>
    tokenError(answer(502, "text/html", "<html>bad gateway</html>"), (e) => expect(e).toMatchObject({ status: 502, name: "FdxApiError" })));
  it("an IdP that answers garbage echoing the request", () =>
    tokenError(
      (f) => answer(200, "application/json", `{"id_token": ${JSON.stringify(f.code)}, "oops": "${f.req.codeVerifier}`)(),
      (e) => expect(e).toBeInstanceOf(FdxResponseError),
    ));
  it("an IdP that answers a JSON array", () => tokenError(answer(200, "application/json", "[]"), (e) => expect(e).toBeInstanceOf(FdxResponseError)));
  it("an oversize body", () =>
    tokenError(answer(200, "application/json", JSON.stringify({ id_token: "x".repeat(70_000) })), (e) => expect(e).toBeInstanceOf(FdxResponseError)));
  it("an answer without an id token or a refresh token", async () => {
    await tokenError(answer(200, "application/json", JSON.stringify({ access_token: "at" })), (e) =>
      expect((e as FdxResponseError).issues.map((i) => i.path)).toEqual(["id_token"]),
    );
    await tokenError(answer(200, "application/json", JSON.stringify({ id_token: jwt({}), refresh_token: 5 })), (e) =>
      expect((e as FdxResponseError).issues.map((i) => i.path)).toEqual(["refresh_token"]),
    );
  });
  const idToken = (token: string) => answer(200, "application/json", JSON.stringify({ id_token: token, refresh_token: "rt-fresh-123456789" }));
  const good = { iss: ISSUER, sub: "s", aud: CLIENT_ID, exp: Math.floor(Date.now() / 1000) + 3600 };
  const badIdTokens: [string, string, RegExp][] = [
    ["a JWT that is not one", "not.a-jwt", /not a JWT/],
    ["five parts (JWE)", "a.b.c.d.e", /not a JWT/],
    ["a header that is not JSON", `${Buffer.from("{").toString("base64url")}.${Buffer.from("{}").toString("base64url")}.s`, /header/],
    ["alg none", jwt(good, { alg: "none" }), /alg/],
    ["no alg", jwt(good, {}), /alg/],
    ["an empty header", `.${Buffer.from(JSON.stringify(good)).toString("base64url")}.s`, /not a JWT/],
    ["an empty payload", `${Buffer.from('{"alg":"RS256"}').toString("base64url")}..s`, /not a JWT/],
    [
      "a part that is base64 but not base64url",
      `${Buffer.from('{"alg":"RS256"}').toString("base64url")}.${Buffer.from(JSON.stringify(good)).toString("base64url")}.a+b`,
      /not a JWT/,
    ],
    ["an exp of 0", jwt({ ...good, exp: 0 }), /exp/],
    ["an aud list with a number", jwt({ ...good, aud: [CLIENT_ID, 5] }), /aud is missing/],
    ["a payload that is not an object", `${Buffer.from('{"alg":"RS256"}').toString("base64url")}.${Buffer.from("[1]").toString("base64url")}.s`, /payload/],
    ["a payload that is not UTF-8", `${Buffer.from('{"alg":"RS256"}').toString("base64url")}.${Buffer.from([0xff, 0xfe]).toString("base64url")}.s`, /payload/],
    ["an aud without our client id", jwt({ ...good, aud: "someone-else" }), /aud does not/],
    ["an aud that is a number", jwt({ ...good, aud: 5 }), /aud is missing/],
    ["several audiences and no azp", jwt({ ...good, aud: [CLIENT_ID, "other"] }), /azp/],
    ["an azp of another client", jwt({ ...good, azp: "other" }), /azp/],
    ["no exp", jwt({ ...good, exp: undefined }), /exp/],
    ["a string exp", jwt({ ...good, exp: "2000000000" }), /exp/],
    ["another iss", jwt({ ...good, iss: "/elsewhere" }), /iss/],
    ["no sub", jwt({ ...good, sub: "" }), /sub/],
  ];
  for (const [name, token, description] of badIdTokens) {
    it(`an id token: ${name}`, () =>
      tokenError(idToken(token), (e) => {
        expect(e).toBeInstanceOf(FdxAuthError);
        expect(e).toMatchObject({ error: "invalid_id_token", errorDescription: expect.stringMatching(description) });
      }));
  }
  it("revokes the refresh token of an answer it refuses, so it outlives nothing", async () => {
    const before = idp.revoked.length;
    await tokenError(idToken(jwt({ ...good, aud: "someone-else" })), (e) => expect(e).toMatchObject({ error: "invalid_id_token" }));
    expect(idp.revoked.slice(before)).toEqual(["rt-fresh-123456789"]);
    // A revocation that fails changes nothing of the error.
    const f = await flow();
    idp.override = ({ path }, res) => {
      if (path === "/revoke") return (res.writeHead(500).end(), true);
      if (path !== "/token") return false;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id_token: "x.y", refresh_token: "rt-orphan-123456789" }));
      return true;
    };
    expect(await rejectionOf(auth().exchangeCode(f.callback.href, f.req))).toMatchObject({ error: "invalid_id_token" });
  });
  it("one audience with azp = our client id passes, and non-string accounts are dropped", async () => {
    const f = await flow();
    idToken(jwt({ ...good, azp: CLIENT_ID, accounts: ["a", 1, null, "b"] }))();
    const set = await auth().exchangeCode(f.callback.href, { state: f.req.state, codeVerifier: f.req.codeVerifier });
    expect(set.accounts).toEqual(["a", "b"]);
  });
  it("several audiences with azp = our client id pass", async () => {
    const f = await flow();
    idToken(jwt({ ...good, aud: ["other", CLIENT_ID], azp: CLIENT_ID }))();
    const set = await auth().exchangeCode(f.callback.href, { state: f.req.state, codeVerifier: f.req.codeVerifier });
    expect(set.refreshToken).toBe("rt-fresh-123456789");
  });
  it("a token endpoint that hangs times out", async () => {
    const slow = make({ timeoutMs: 50 });
    const req = await slow.authorizationUrl({ connector: "c" });
    idp.override = ({ path }) => path === "/token";
    const error = await rejectionOf(slow.exchangeCode(idp.callback(req.url), req));
    expect(error).toBeInstanceOf(FdxTimeoutError);
  });
});

describe("refresh and revoke", () => {
  const connect = async () => {
    const req = await auth().authorizationUrl({ connector: "c" });
    return auth().exchangeCode(idp.callback(req.url), req);
  };
  it("rotates the refresh token; the spent one is refused as invalid_request with no token in the error", async () => {
    const first = await connect();
    const second = await auth().refresh(first.refreshToken, { previousClaims: first.claims });
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.subject).toBe(first.subject);
    expect(Object.fromEntries(new URLSearchParams(idp.bodies.at(-1)))).toEqual({ grant_type: "refresh_token", refresh_token: first.refreshToken });
    const error = await rejectionOf(auth().refresh(first.refreshToken));
    expect(error).toMatchObject({ error: "invalid_request", status: 400, errorDescription: expect.stringContaining("already been claimed") });
    await expectCleanError(error, [first.refreshToken]);
  });
  it("an error that echoes the id token kept from before names it redacted, as it does the refresh token", async () => {
    const first = await connect();
    answerToken(400, JSON.stringify({ error: "invalid_grant", error_description: `id_token_hint ${first.idToken} for ${first.refreshToken} is stale` }));
    const error = await rejectionOf(auth().refresh(first.refreshToken, { previous: { idToken: first.idToken, claims: first.claims } }));
    expect(error).toMatchObject({ error: "invalid_grant", status: 400, errorDescription: "id_token_hint [redacted] for [redacted] is stale" });
    await expectCleanError(error, [first.idToken, first.refreshToken]);
  });
  it("keeps the refresh token when the answer brings none", async () => {
    const first = await connect();
    answerToken(200, JSON.stringify({ id_token: jwt({ iss: ISSUER, sub: "s", aud: CLIENT_ID, exp: Math.floor(Date.now() / 1000) + 3600 }) }));
    expect((await auth().refresh(first.refreshToken)).refreshToken).toBe(first.refreshToken);
  });
  for (const [claim, value] of [
    ["sub", "another-user"],
    ["aud", [CLIENT_ID, "x"]],
    ["iss", "/sandbox2"],
  ] as const) {
    it(`refuses a refresh whose ${claim} changed`, async () => {
      const first = await connect();
      const previousClaims = claim === "iss" ? { ...first.claims, iss: value } : first.claims;
      if (claim !== "iss") idp.extraClaims = { [claim]: value, azp: CLIENT_ID };
      const error = await rejectionOf(auth().refresh(first.refreshToken, { previousClaims }));
      expect(error).toMatchObject({ error: "invalid_id_token", errorDescription: expect.stringContaining(claim) });
    });
  }
  it("takes the same audiences in another order", async () => {
    const first = await connect();
    idp.extraClaims = { aud: ["x", CLIENT_ID], azp: CLIENT_ID };
    const second = await auth().refresh(first.refreshToken, { previousClaims: { ...first.claims, aud: [CLIENT_ID, "x"] } });
    expect(second.claims.aud).toEqual(["x", CLIENT_ID]);
  });
  it("refuses an empty refresh token", async () => {
    expect(await rejectionOf(auth().refresh(""))).toBeInstanceOf(FdxValidationError);
    expect(await rejectionOf(auth().revoke(""))).toBeInstanceOf(FdxValidationError);
  });
  it("revokes with token_type_hint=refresh_token; a failure is a clean FdxAuthError", async () => {
    const set = await connect();
    await auth().revoke(set.refreshToken);
    expect(Object.fromEntries(new URLSearchParams(idp.bodies.at(-1)))).toEqual({ token: set.refreshToken, token_type_hint: "refresh_token" });
    expect(idp.revoked).toContain(set.refreshToken);
    const wrong = make({ clientSecret: "wrong-secret-value" });
    const error = await rejectionOf(wrong.revoke(set.refreshToken));
    expect(error).toMatchObject({ error: "invalid_client", status: 401 });
    expectClean(await renderings(error), [set.refreshToken, "wrong-secret-value"]);
  });
});

describe("isSafeEndpoint", () => {
  it("takes https:, and http: only to a loopback host, never with credentials", () => {
    const safe = ["https://idp.example.com/x", "http://localhost:8080/x", "http://[::1]/x", "http://127.0.0.1/x", "http://127.200.3.4:9/x"];
    const unsafe = [
      42,
      undefined,
      new URL("https://idp.example.com/x"),
      "not a url",
      "http://idp.example.com",
      "http://x.127.0.0.1",
      "http://127.0.0.1.evil.example",
      "http://10.0.0.1",
      "ftp://localhost",
      "https://user@idp.example.com",
      "https://:pass@idp.example.com",
      "https://u:p@idp.example.com",
    ];
    for (const value of safe) expect([value, isSafeEndpoint(value)]).toEqual([value, true]);
    for (const value of unsafe) expect([value, isSafeEndpoint(value)]).toEqual([value, false]);
  });
});

describe("option and input checks name each path and rule", () => {
  const HTTPS_RULE = "must be an https: URL (http: only to a loopback host)";
  const NON_EMPTY = "must be a non-empty string";
  const issuesOf = (run: () => unknown) => {
    try {
      run();
    } catch (e) {
      expect(e).toBeInstanceOf(FdxValidationError);
      return (e as FdxValidationError).issues;
    }
    throw new Error("accepted");
  };
  const asyncIssuesOf = async (promise: Promise<unknown>) => {
    const e = await rejectionOf(promise);
    expect(e).toBeInstanceOf(FdxValidationError);
    return (e as FdxValidationError).issues;
  };

  it("createAuthClient lists every bad option", () => {
    const all = {
      clientId: 5,
      clientSecret: "",
      issuer: "http://idp.example.com",
      redirectUri: "/cb",
      timeoutMs: 1.5,
      tokenEndpointAuth: "none",
      expectedIssuer: "",
    };
    expect(issuesOf(() => createAuthClient(all as never))).toEqual([
      { path: "clientId", message: NON_EMPTY },
      { path: "clientSecret", message: NON_EMPTY },
      { path: "issuer", message: HTTPS_RULE },
      { path: "redirectUri", message: "must be an absolute URL" },
      { path: "timeoutMs", message: "must be an integer >= 1" },
      { path: "tokenEndpointAuth", message: 'must be "client_secret_basic" or "client_secret_post"' },
      { path: "expectedIssuer", message: NON_EMPTY },
    ]);
    const base = { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI };
    expect(
      issuesOf(() =>
        createAuthClient({ ...base, issuer: "", endpoints: { authorization: "http://a.example/auth", token: 7, revocation: "ftp://x" } } as never),
      ),
    ).toEqual([
      { path: "endpoints.authorization", message: HTTPS_RULE },
      { path: "endpoints.token", message: HTTPS_RULE },
      { path: "endpoints.revocation", message: HTTPS_RULE },
      { path: "issuer", message: NON_EMPTY },
    ]);
    expect(issuesOf(() => createAuthClient({ ...base, issuer: "https://idp.example.com", expectedIssuer: 5 } as never))).toEqual([
      { path: "expectedIssuer", message: NON_EMPTY },
    ]);
    const endpoints = { authorization: "https://a.example/auth", token: "https://a.example/token" };
    expect(issuesOf(() => createAuthClient({ ...base, issuer: 5, endpoints } as never))).toEqual([{ path: "issuer", message: NON_EMPTY }]);
    expect(issuesOf(() => createAuthClient({ ...base, clientId: "", issuer: "https://idp.example.com", timeoutMs: -1 }))).toEqual([
      { path: "clientId", message: NON_EMPTY },
      { path: "timeoutMs", message: "must be an integer >= 1" },
    ]);
    // The boundaries that pass.
    for (const extra of [
      { timeoutMs: 1 },
      { tokenEndpointAuth: "client_secret_basic" },
      { tokenEndpointAuth: "client_secret_post" },
      { expectedIssuer: "/x" },
    ] as const) {
      expect(() => createAuthClient({ ...base, issuer: "https://idp.example.com", ...extra })).not.toThrow();
    }
    // With endpoints given the issuer is only the id tokens' iss: it need not be a URL.
    expect(() =>
      createAuthClient({ ...base, issuer: "/sandbox", endpoints: { authorization: "https://a.example/auth", token: "https://a.example/token" } }),
    ).not.toThrow();
  });

  it("authorizationUrl lists every bad input", async () => {
    expect(
      await asyncIssuesOf(
        auth().authorizationUrl({ connector: "", scope: "openid", prompt: 1, loginHint: 2, extraParams: { x: 1, state: "s", ui_locales: "fr" } } as never),
      ),
    ).toEqual([
      { path: "connector", message: NON_EMPTY },
      { path: "scope", message: "must be an array of scope tokens" },
      { path: "prompt", message: "must be a string or null" },
      { path: "loginHint", message: "must be a string" },
      { path: "extraParams.x", message: "must be a string" },
      { path: "extraParams.state", message: "is set by the flow" },
    ]);
    expect(await asyncIssuesOf(auth().authorizationUrl(undefined as never))).toEqual([{ path: "connector", message: NON_EMPTY }]);
    expect(await asyncIssuesOf(auth().authorizationUrl({ connector: 5 } as never))).toEqual([{ path: "connector", message: NON_EMPTY }]);
  });

  it("refresh and revoke refuse a token that is not a non-empty string; revoke needs a revocation endpoint", async () => {
    const refreshToken = [{ path: "refreshToken", message: NON_EMPTY }];
    for (const bad of ["", 5, undefined]) {
      expect(await asyncIssuesOf(auth().refresh(bad as never))).toEqual(refreshToken);
      expect(await asyncIssuesOf(auth().revoke(bad as never))).toEqual(refreshToken);
    }
    expect(idp.bodies).toHaveLength(0);
    const noRevocation = make({ endpoints: { authorization: `${idp.url}/auth`, token: `${idp.url}/token` }, issuer: ISSUER });
    expect(await asyncIssuesOf(noRevocation.revoke("rt-1"))).toEqual([{ path: "endpoints.revocation", message: "the IdP has no revocation endpoint" }]);
  });

  it("exchangeCode says which checks are missing", async () => {
    const describeOf = async (checks: unknown) =>
      ((await rejectionOf(auth().exchangeCode("http://127.0.0.1/cb?code=1&state=s", checks as never))) as FdxAuthError).errorDescription;
    expect(await describeOf(undefined)).toBe("state, codeVerifier must be non-empty strings (from authorizationUrl)");
    expect(await describeOf({ state: "s", codeVerifier: "v", nonce: 5 })).toBe("nonce must be non-empty strings (from authorizationUrl)");
    expect(await describeOf({ state: 5, codeVerifier: "v", nonce: "" })).toBe("state, nonce must be non-empty strings (from authorizationUrl)");
  });
});

describe("callback, answer and discovery errors say what was wrong", () => {
  const NON_EMPTY = "must be a non-empty string";
  const HTTPS_RULE = "must be an https: URL (http: only to a loopback host)";
  const flow = async () => {
    const req = await auth().authorizationUrl({ connector: "c" });
    return { req, callback: new URL(idp.callback(req.url)) };
  };
  const json = (path: string, status: number, body: unknown) => {
    idp.override = ({ path: p }, res) => (p === path ? (res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body)), true) : false);
  };

  it("each callback check has its own description", async () => {
    const cases: [(u: URL) => void, string, string][] = [
      [(u) => u.searchParams.append("state", "forged"), "invalid_state", "the callback carries more than one state"],
      [(u) => u.searchParams.set("state", "forged"), "invalid_state", "the callback's state is not the one of this authorization"],
      [(u) => u.searchParams.delete("state"), "invalid_state", "the callback's state is not the one of this authorization"],
      [(u) => u.searchParams.set("iss", "https://evil.example"), "invalid_issuer", "the callback's iss is not the issuer of this client (RFC 9207)"],
      [(u) => u.searchParams.set("code", ""), "invalid_callback", "the callback carries no single code"],
    ];
    for (const [mutate, error, errorDescription] of cases) {
      const { req, callback } = await flow();
      mutate(callback);
      expect(await rejectionOf(auth().exchangeCode(callback.href, req))).toMatchObject({ error, errorDescription });
    }
    const { req } = await flow();
    expect(await rejectionOf(auth().exchangeCode("/callback?code=1", req))).toMatchObject({
      error: "invalid_callback",
      errorDescription: "the callback URL is not an absolute URL",
    });
    expect(idp.bodies).toHaveLength(0);
  });

  it("an error callback or answer that echoes the nonce, state or verifier keeps none of them", async () => {
    const { req, callback } = await flow();
    callback.searchParams.set("error", "access_denied");
    callback.searchParams.set("error_description", `echo ${req.nonce} ${req.codeVerifier}`);
    const denied = await rejectionOf(auth().exchangeCode(callback.href, req));
    expect(denied).toMatchObject({ error: "access_denied", errorDescription: expect.stringMatching(/^echo /) });
    await expectCleanError(denied, [req.nonce, req.codeVerifier]);

    const second = await flow();
    json("/token", 400, { error: "invalid_grant", error_description: `echo ${second.req.nonce} ${second.req.state}` });
    const refused = await rejectionOf(auth().exchangeCode(second.callback.href, second.req));
    expect(refused).toMatchObject({ error: "invalid_grant", status: 400, errorDescription: expect.stringMatching(/^echo /) });
    await expectCleanError(refused, [second.req.nonce, second.req.state, second.req.codeVerifier]);
  });

  it("an error answer is an FdxAuthError only with a string error; a description that is not text is dropped", async () => {
    const a = await flow();
    json("/token", 400, { error: 5, error_description: "x" });
    const notOAuth = await rejectionOf(auth().exchangeCode(a.callback.href, a.req));
    expect(notOAuth).toBeInstanceOf(FdxApiError);
    expect(notOAuth).not.toBeInstanceOf(FdxAuthError);
    const nothing = await flow();
    json("/token", 400, null);
    const bare = await rejectionOf(auth().exchangeCode(nothing.callback.href, nothing.req));
    expect(bare).toBeInstanceOf(FdxApiError);
    expect(bare).not.toBeInstanceOf(FdxAuthError);
    expect(bare).toMatchObject({ status: 400, body: null });
    const b = await flow();
    json("/token", 400, { error: "invalid_grant", error_description: 7 });
    expect(await rejectionOf(auth().exchangeCode(b.callback.href, b.req))).toMatchObject({
      error: "invalid_grant",
      errorDescription: undefined,
      status: 400,
      message: "invalid_grant",
    });
  });

  it("a token answer's problems are listed with their rule", async () => {
    const cases: [unknown, { path: string; message: string }[]][] = [
      [[1], [{ path: "", message: "the token answer is not a JSON object" }]],
      [{ access_token: "at" }, [{ path: "id_token", message: NON_EMPTY }]],
      [
        { id_token: "", refresh_token: "" },
        [
          { path: "id_token", message: NON_EMPTY },
          { path: "refresh_token", message: NON_EMPTY },
        ],
      ],
      [
        { id_token: 5, refresh_token: 5 },
        [
          { path: "id_token", message: NON_EMPTY },
          { path: "refresh_token", message: NON_EMPTY },
        ],
      ],
    ];
    for (const [body, issues] of cases) {
      const { req, callback } = await flow();
      json("/token", 200, body);
      const error = (await rejectionOf(auth().exchangeCode(callback.href, req))) as FdxResponseError;
      expect(error).toBeInstanceOf(FdxResponseError);
      expect(error.issues).toEqual(issues);
    }
  });

  it("a refused refresh answer that hands back the same refresh token does not revoke it", async () => {
    const { req, callback } = await flow();
    const set = await auth().exchangeCode(callback.href, req);
    json("/token", 200, { id_token: "x.y", refresh_token: set.refreshToken });
    expect(await rejectionOf(auth().refresh(set.refreshToken))).toMatchObject({ error: "invalid_id_token" });
    expect(idp.revoked).not.toContain(set.refreshToken);
    idp.override = undefined;
    // Still usable: it was not revoked behind the caller's back.
    expect((await auth().refresh(set.refreshToken)).subject).toBe(set.subject);
  });

  it("a discovery document's problems are listed with their rule", async () => {
    json("/.well-known/openid-configuration", 200, {
      issuer: 5,
      authorization_endpoint: "http://evil.example/auth",
      token_endpoint: 7,
      revocation_endpoint: "x",
    });
    expect(((await rejectionOf(make().issuer())) as FdxResponseError).issues).toEqual([
      { path: "issuer", message: NON_EMPTY },
      { path: "authorization_endpoint", message: HTTPS_RULE },
      { path: "token_endpoint", message: HTTPS_RULE },
      { path: "revocation_endpoint", message: HTTPS_RULE },
    ]);
    json("/.well-known/openid-configuration", 200, { issuer: "", authorization_endpoint: `${idp.url}/auth`, token_endpoint: `${idp.url}/token` });
    expect(((await rejectionOf(make().issuer())) as FdxResponseError).issues).toEqual([{ path: "issuer", message: NON_EMPTY }]);
    json("/.well-known/openid-configuration", 200, [1]);
    expect(((await rejectionOf(make().issuer())) as FdxResponseError).issues).toEqual([{ path: "", message: "the discovery document is not a JSON object" }]);
  });

  it("a discovery document without a revocation endpoint is fine until revoke() is called", async () => {
    json("/.well-known/openid-configuration", 200, { issuer: ISSUER, authorization_endpoint: `${idp.url}/auth`, token_endpoint: `${idp.url}/token` });
    const client = make();
    expect(await client.issuer()).toBe(ISSUER);
    expect(((await rejectionOf(client.revoke("rt-1"))) as FdxValidationError).issues).toEqual([
      { path: "endpoints.revocation", message: "the IdP has no revocation endpoint" },
    ]);
  });

  it("discovery is a public GET (no credentials in Authorization), found under an issuer with several trailing slashes", async () => {
    const seen: (string | string[] | undefined)[] = [];
    idp.override = ({ path, headers }) => {
      if (path === "/.well-known/openid-configuration") seen.push(headers.authorization);
      return false;
    };
    expect(await make({ issuer: `${idp.url}//` }).issuer()).toBe(ISSUER);
    // request() sends the header as given: empty (see discover()).
    expect(seen).toEqual([""]);
  });
});
