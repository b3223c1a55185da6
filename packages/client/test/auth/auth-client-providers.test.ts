// The auth client against what a standard OpenID provider does differently
// from the network: prompt and offline_access, answers without a refresh
// token or id token, access tokens and their expiry, and discovery
// documents that name another issuer.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAuthClient, FdxAuthError, type AuthClient } from "../../src/auth/index.js";
import { FdxResponseError, FdxValidationError } from "../../src/index.js";
import { rejectionOf } from "../support/http.js";
import { CLIENT_ID, CLIENT_SECRET, ISSUER, REDIRECT_URI, expectClean, jwt, renderings, startIdp, type TestIdp } from "../support/idp.js";

let idp: TestIdp;
beforeAll(async () => {
  idp = await startIdp();
});
afterAll(() => idp.close());
afterEach(() => {
  idp.override = undefined;
  idp.extraClaims = {};
  idp.extraAnswer = {};
  idp.accessTokenTtlS = undefined;
  idp.bodies.length = 0;
});
const make = (extra: Partial<Parameters<typeof createAuthClient>[0]> = {}): AuthClient =>
  createAuthClient({ issuer: idp.url, expectedIssuer: ISSUER, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI, ...extra });
const flow = async (auth = make()) => {
  const req = await auth.authorizationUrl({ connector: "c" });
  const callback = idp.callback(req.url);
  return { auth, req, callback, code: new URL(callback).searchParams.get("code")! };
};
const tokenAnswer = (body: Record<string, unknown>) => {
  idp.override = ({ path }, res) => (path === "/token" ? (res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body)), true) : false);
};
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

describe("authorizationUrl: prompt", () => {
  const promptOf = async (input: Parameters<AuthClient["authorizationUrl"]>[0]) =>
    new URL((await make().authorizationUrl(input)).url).searchParams.getAll("prompt");

  it("sends prompt=consent when the scope holds offline_access and no prompt is given", async () => {
    expect(await promptOf({ connector: "c" })).toEqual(["consent"]);
    expect(await promptOf({ connector: "c", scope: ["openid", "accounts", "offline_access"] })).toEqual(["consent"]);
  });

  it("sends no prompt without offline_access, the given one when given, and none for null", async () => {
    expect(await promptOf({ connector: "c", scope: ["openid"] })).toEqual([]);
    expect(await promptOf({ connector: "c", prompt: "login" })).toEqual(["login"]);
    expect(await promptOf({ connector: "c", prompt: "none", scope: ["openid"] })).toEqual(["none"]);
    expect(await promptOf({ connector: "c", prompt: null })).toEqual([]);
    // The flow sets prompt: extraParams cannot add a second one.
    expect(await promptOf({ connector: "c", prompt: null, extraParams: { prompt: "select_account" } })).toEqual(["select_account"]);
    expect(await promptOf({ connector: "c", extraParams: { prompt: "select_account" } })).toEqual(["consent"]);
  });

  it("refuses a prompt that is neither a string nor null", async () => {
    for (const prompt of [1, false, {}]) {
      const error = await rejectionOf(make().authorizationUrl({ connector: "c", prompt } as never));
      expect(error).toBeInstanceOf(FdxValidationError);
      expect((error as FdxValidationError).issues).toEqual([{ path: "prompt", message: "must be a string or null" }]);
    }
  });
});

describe("exchangeCode: an answer without a refresh token", () => {
  it("is no_refresh_token naming the granted scope and prompt, with no secret in it", async () => {
    const { auth, req, callback, code } = await flow();
    idp.extraAnswer = { refresh_token: undefined, scope: "openid" };
    const error = (await rejectionOf(auth.exchangeCode(callback, req))) as FdxAuthError;
    expect(error).toBeInstanceOf(FdxAuthError);
    expect(error.error).toBe("no_refresh_token");
    expect(error.status).toBe(200);
    expect(error.errorDescription).toContain('granted scope: "openid"');
    expect(error.errorDescription).toContain("the usual cause is prompt");
    expect(error.errorDescription).toContain("prompt=consent");
    expectClean(await renderings(error), [code, req.codeVerifier, req.nonce, req.state, CLIENT_SECRET]);
  });

  it("says the scope was not stated when the answer has none", async () => {
    const { auth, req, callback } = await flow();
    idp.extraAnswer = { refresh_token: undefined };
    const error = (await rejectionOf(auth.exchangeCode(callback, req))) as FdxAuthError;
    expect(error).toMatchObject({ error: "no_refresh_token", errorDescription: expect.stringContaining("granted scope: not stated") });
  });

  it("redacts a secret a hostile provider puts in the scope", async () => {
    const { auth, req, callback, code } = await flow();
    const accessToken = "at-echoed-in-scope-0123456789";
    idp.extraAnswer = { refresh_token: undefined, access_token: accessToken, scope: `openid ${accessToken} ${code} ${req.codeVerifier}` };
    const error = (await rejectionOf(auth.exchangeCode(callback, req))) as FdxAuthError;
    expect(error.errorDescription).toContain('granted scope: "openid [redacted] [redacted] [redacted]"');
    expectClean(await renderings(error), [accessToken, code, req.codeVerifier]);
  });

  it("redacts an id token echoed in the scope, and names the scope as sent when there is no access token", async () => {
    const { auth, req, callback } = await flow();
    idp.extraAnswer = { refresh_token: undefined, access_token: undefined, scope: "openid" };
    const bare = (await rejectionOf(auth.exchangeCode(callback, req))) as FdxAuthError;
    expect(bare.errorDescription).toContain('(granted scope: "openid")');
    const echo = await flow();
    let idToken = "";
    idp.override = ({ path }, res) => {
      if (path !== "/token") return false;
      idToken = jwt({ iss: ISSUER, aud: CLIENT_ID, sub: "user-sub-1", exp: Math.floor(Date.now() / 1000) + 600 });
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ token_type: "Bearer", access_token: "", id_token: idToken, scope: `openid ${idToken}` }));
      return true;
    };
    try {
      const error = (await rejectionOf(echo.auth.exchangeCode(echo.callback, echo.req))) as FdxAuthError;
      expect(error).toMatchObject({ error: "no_refresh_token", status: 200 });
      expect(error.errorDescription).toContain('(granted scope: "openid [redacted]")');
      expect(error.errorDescription).not.toContain(idToken);
    } finally {
      idp.override = undefined;
    }
  });

  it("names the scope as sent when the access token is not a string (a provider's bug): only tokens are redacted", async () => {
    for (const accessToken of [42, { token: "x" }, null]) {
      const { auth, req, callback } = await flow();
      idp.extraAnswer = { refresh_token: undefined, access_token: accessToken, scope: "openid accounts 42 x" };
      const error = (await rejectionOf(auth.exchangeCode(callback, req))) as FdxAuthError;
      expect([accessToken, error.error, error.errorDescription]).toEqual([
        accessToken,
        "no_refresh_token",
        expect.stringContaining('(granted scope: "openid accounts 42 x")'),
      ]);
    }
  });

  it("is taken with requireRefreshToken: false, in the checks or the options (the options win)", async () => {
    idp.extraAnswer = { refresh_token: undefined };
    const a = await flow();
    const inChecks = await a.auth.exchangeCode(a.callback, { ...a.req, requireRefreshToken: false });
    expect(inChecks).toMatchObject({ refreshToken: "", subject: "user-sub-1", accessToken: expect.stringMatching(/^at-/) });
    const b = await flow();
    expect(await b.auth.exchangeCode(b.callback, b.req, { requireRefreshToken: false })).toMatchObject({ refreshToken: "" });
    const c = await flow();
    const error = await rejectionOf(c.auth.exchangeCode(c.callback, { ...c.req, requireRefreshToken: false }, { requireRefreshToken: true }));
    expect(error).toMatchObject({ error: "no_refresh_token" });
  });

  it("is not asked of a refresh, which keeps the refresh token it sent", async () => {
    const { auth, req, callback } = await flow();
    const first = await auth.exchangeCode(callback, req);
    idp.extraAnswer = { refresh_token: undefined };
    expect((await auth.refresh(first.refreshToken)).refreshToken).toBe(first.refreshToken);
  });
});

describe("the access token", () => {
  it("is read with its expiry from expires_in", async () => {
    const { auth, req, callback } = await flow();
    idp.accessTokenTtlS = 120;
    const before = Date.now();
    const set = await auth.exchangeCode(callback, req);
    const after = Date.now();
    expect(set.accessToken).toMatch(/^at-\d+-a{24}$/);
    expect(set.accessTokenExpiresAt).toBeGreaterThanOrEqual(before + 120_000);
    expect(set.accessTokenExpiresAt).toBeLessThanOrEqual(after + 120_000);
  });

  it("takes expires_in as a numeric string, and none at all (expiry 0); a non-string access_token is none", async () => {
    const cases: [Record<string, unknown>, string, [number, number]][] = [
      [{ expires_in: "300" }, "at", [300_000, 300_000]],
      [{ expires_in: "300.25" }, "at", [300_250, 300_250]],
      [{ expires_in: "1.123456789" }, "at", [1123, 1124]],
      [{ expires_in: 1 }, "at", [1000, 1000]],
      [{ expires_in: 400 * 86_400 }, "at", [400 * 86_400_000, 400 * 86_400_000]],
      [{ expires_in: undefined }, "at", [-Infinity, -Infinity]],
      [{ access_token: 42 }, "", [3_600_000, 3_600_000]],
    ];
    for (const [extra, token, [low, high]] of cases) {
      const { auth, req, callback } = await flow();
      idp.extraAnswer = { access_token: "at", ...extra };
      const before = Date.now();
      const set = await auth.exchangeCode(callback, req);
      const after = Date.now();
      expect([extra, set.accessToken]).toEqual([extra, token]);
      if (low === -Infinity) expect(set.accessTokenExpiresAt).toBe(0);
      else expect([extra, set.accessTokenExpiresAt >= before + low && set.accessTokenExpiresAt <= after + high]).toEqual([extra, true]);
    }
  });

  it("refuses an expires_in that is out of range or not a number, and revokes the refresh token of that answer", async () => {
    for (const expiresIn of [0, 0.5, -1, 400 * 86_400 + 1, 1e300, "abc", "1e3", "", " 60", true, null, {}, [60]]) {
      const { auth, req, callback } = await flow();
      idp.extraAnswer = { expires_in: expiresIn };
      const revoked = idp.revoked.length;
      const error = await rejectionOf(auth.exchangeCode(callback, req));
      expect([expiresIn, error]).toEqual([expiresIn, expect.any(FdxResponseError)]);
      expect((error as FdxResponseError).issues).toEqual([{ path: "expires_in", message: "must be a number of seconds from 1 to 34560000" }]);
      expect(idp.revoked.slice(revoked)).toEqual([expect.stringMatching(/^rt-/)]);
    }
  });
});

describe("refresh: an answer without an id token (OpenID Connect Core §12.2)", () => {
  it("keeps the previous id token and its claims when given, with a new access and refresh token", async () => {
    const { auth, req, callback } = await flow();
    const first = await auth.exchangeCode(callback, req);
    idp.extraAnswer = { id_token: undefined };
    const second = await auth.refresh(first.refreshToken, { previous: { idToken: first.idToken, claims: first.claims } });
    expect(second).toMatchObject({
      idToken: first.idToken,
      claims: first.claims,
      expiresAt: first.expiresAt,
      subject: first.subject,
      accounts: first.accounts,
      connector: "c",
    });
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.accessToken).toMatch(/^at-/);
  });

  it("is an unreadable answer without previous", async () => {
    const { auth, req, callback } = await flow();
    const first = await auth.exchangeCode(callback, req);
    idp.extraAnswer = { id_token: undefined };
    const error = await rejectionOf(auth.refresh(first.refreshToken, { previousClaims: first.claims }));
    expect(error).toBeInstanceOf(FdxResponseError);
    expect((error as FdxResponseError).issues).toEqual([{ path: "id_token", message: "must be a non-empty string" }]);
  });

  it("checks a new id token against the previous claims", async () => {
    const { auth, req, callback } = await flow();
    const first = await auth.exchangeCode(callback, req);
    idp.extraClaims = { sub: "someone-else" };
    const error = await rejectionOf(auth.refresh(first.refreshToken, { previous: { idToken: first.idToken, claims: first.claims } }));
    expect(error).toMatchObject({ error: "invalid_id_token", errorDescription: "its sub differs from the refreshed token's" });
  });

  it("never takes a kept exp that a date cannot hold", async () => {
    const { auth, req, callback } = await flow();
    const first = await auth.exchangeCode(callback, req);
    idp.extraAnswer = { id_token: undefined };
    const hostile = { ...first.claims, exp: 1e300 };
    const second = await auth.refresh(first.refreshToken, { previous: { idToken: first.idToken, claims: hostile } });
    expect(second.expiresAt).toBe(0);
    const third = await auth.refresh(second.refreshToken, { previous: { idToken: first.idToken, claims: { ...first.claims, exp: "soon" } } });
    expect(third.expiresAt).toBe(0);
  });
});

describe("discovery: the document's issuer", () => {
  const discovery = (issuer: unknown) => {
    idp.override = ({ path }, res) => {
      if (!path.startsWith("/.well-known")) return false;
      const doc = { issuer, authorization_endpoint: `${idp.url}/auth`, token_endpoint: `${idp.url}/token`, revocation_endpoint: `${idp.url}/revoke` };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(doc));
      return true;
    };
  };
  const plain = (issuer: string) => createAuthClient({ issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI });

  it("is taken when it is the configured issuer, one trailing slash aside on either side", async () => {
    discovery(idp.url);
    expect(await plain(idp.url).issuer()).toBe(idp.url);
    expect(await plain(`${idp.url}/`).issuer()).toBe(idp.url);
    discovery(`${idp.url}/`);
    expect(await plain(idp.url).issuer()).toBe(`${idp.url}/`);
  });

  it("is refused when it names another issuer, naming both", async () => {
    for (const other of ["https://evil.example", `${idp.url}/other`, `${idp.url}//`, ISSUER]) {
      discovery(other);
      const error = (await rejectionOf(plain(idp.url).authorizationUrl({ connector: "c" }))) as FdxResponseError;
      expect([other, error]).toEqual([other, expect.any(FdxResponseError)]);
      expect(error.issues).toEqual([
        {
          path: "issuer",
          message: `is ${JSON.stringify(other)}, not the configured issuer ${JSON.stringify(idp.url)} (set expectedIssuer when the provider names itself otherwise)`,
        },
      ]);
      expect(idp.bodies).toEqual([]);
    }
  });

  it("must be the expectedIssuer when that is set: a path issuer is taken only so", async () => {
    discovery(ISSUER);
    expect(await make().issuer()).toBe(ISSUER);
    discovery(idp.url);
    const error = (await rejectionOf(make().issuer())) as FdxResponseError;
    expect(error).toBeInstanceOf(FdxResponseError);
    expect(error.message).toContain(`issuer: is ${JSON.stringify(idp.url)}, not the expectedIssuer "/sandbox"`);
    discovery(`${ISSUER}/`);
    expect(await rejectionOf(make().issuer())).toBeInstanceOf(FdxResponseError);
  });

  it("cuts a long hostile issuer in the message", async () => {
    discovery(`https://evil.example/${"x".repeat(5000)}`);
    const error = (await rejectionOf(plain(idp.url).issuer())) as FdxResponseError;
    expect(error.issues[0]!.message.length).toBeLessThan(300);
    expect(error.issues[0]!.message).toContain(JSON.stringify(idp.url));
  });
});

describe("id tokens from the token endpoint", () => {
  it("an expired one is refused, and so is one 1e300 ahead, with no token in the error", async () => {
    for (const [exp, description] of [
      [Math.floor(Date.now() / 1000) - 3600, "its exp has passed"],
      [1e300, "its exp is more than 400 days ahead"],
    ] as const) {
      const { auth, req, callback } = await flow();
      const idToken = jwt({ iss: ISSUER, sub: "s", aud: CLIENT_ID, exp });
      tokenAnswer({ id_token: idToken, refresh_token: "rt-refused-0123456789" });
      const error = await rejectionOf(auth.exchangeCode(callback, req));
      expect(error).toMatchObject({ error: "invalid_id_token", errorDescription: description });
      expectClean(await renderings(error), [idToken, "rt-refused-0123456789"]);
    }
    const { auth, req, callback } = await flow();
    tokenAnswer({ id_token: jwt({ iss: ISSUER, sub: "s", aud: CLIENT_ID, exp: inAnHour() }, { alg: "None" }), refresh_token: "rt-x-0123456789" });
    expect(await rejectionOf(auth.exchangeCode(callback, req))).toMatchObject({
      error: "invalid_id_token",
      errorDescription: "its alg is not an asymmetric JWS algorithm",
    });
  });
});
