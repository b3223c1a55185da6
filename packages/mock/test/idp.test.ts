// The sandbox IdP's authorization pages over real HTTP, driven as a browser
// with JavaScript off drives them: GET the page, read its form, POST it.
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_REDIRECT_URIS, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, startMockServer } from "../src/index.js";
import { useMockServer } from "./helpers.js";
import { approveInBrowser, authorizationRequest, CALLBACK, claimsOf, exchange, post, readForm, Browser } from "./idp-helpers.js";

const ctx = useMockServer();

describe("the IdP's origin and discovery", () => {
  it("listens on its own origin and names its endpoints in the discovery document", async () => {
    const { mock } = ctx;
    expect(mock.idpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(new URL(mock.idpUrl).origin).not.toBe(new URL(mock.baseUrl).origin);
    expect([mock.clientId, mock.clientSecret]).toEqual([SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET]);
    const discovery = await (await fetch(`${mock.idpUrl}/.well-known/openid-configuration`)).json();
    expect(discovery).toMatchObject({
      issuer: mock.idpUrl,
      authorization_endpoint: `${mock.idpUrl}/auth`,
      token_endpoint: `${mock.idpUrl}/token`,
      revocation_endpoint: `${mock.idpUrl}/revoke`,
      jwks_uri: `${mock.idpUrl}/keys`,
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      authorization_response_iss_parameter_supported: true,
    });
  });

  it("answers an unknown IdP path 404 and a wrong method 405 with Allow", async () => {
    const missing = await fetch(`${ctx.mock.idpUrl}/userinfo`);
    expect(missing.status).toBe(404);
    const wrong = await fetch(`${ctx.mock.idpUrl}/token`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("Allow")).toBe("POST, OPTIONS");
    // A method named like an Object.prototype member is just another unknown method.
    expect((await ctx.mock.app.fetch(new Request(`${ctx.mock.idpUrl}/token`, { method: "constructor" }))).status).toBe(405);
    // The API's paths are not served on the IdP's origin, nor the IdP's on the API's.
    expect((await fetch(`${ctx.mock.idpUrl}/consents/v1/consent-active-1`)).status).toBe(404);
    expect((await fetch(`${ctx.mock.baseUrl}/.well-known/openid-configuration`)).status).toBe(404);
  });
});

describe("sign in, tick accounts, approve", () => {
  it("shows a sign-in page that needs no script, then the user's accounts, then redirects with code, state and iss", async () => {
    const browser = new Browser();
    const { mock } = ctx;
    const request = authorizationRequest(mock);
    const page = await browser.fetch(request.url);
    expect(page.status).toBe(200);
    expect(page.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("Cache-Control")).toBe("no-store");
    expect(page.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain(mock.clientId);
    const form = readForm(html);
    expect(form.inputs.map((i) => i.name)).toEqual(expect.arrayContaining(["username", "password", "state", "code_challenge"]));

    const consent = await browser.submit(request.url, html, { username: "user_good", password: "pass_good" }, "login");
    expect(consent.status).toBe(200);
    const consentHtml = await consent.text();
    expect(consentHtml).toContain("Signed in as <strong>user_good</strong>");
    const boxes = readForm(consentHtml).inputs.filter((i) => i.type === "checkbox");
    expect(boxes.map((b) => [b.value, "checked" in b])).toEqual([
      ["ACC-1001", true],
      ["ACC-1002", true],
      ["ACC-1003", true],
    ]);

    const approved = await browser.submit(request.url, consentHtml, {}, "approve", ["ACC-1001", "ACC-1003"]);
    expect(approved.status).toBe(302);
    const callback = new URL(approved.headers.get("Location") as string);
    expect(`${callback.origin}${callback.pathname}`).toBe(CALLBACK);
    expect(callback.searchParams.get("state")).toBe(request.state);
    expect(callback.searchParams.get("iss")).toBe(mock.idpUrl);
    expect(callback.searchParams.get("code")).toMatch(/^[\w-]{43}$/);

    const tokens = await exchange(mock, callback.href, request);
    const claims = claimsOf(tokens.id_token);
    expect(claims).toMatchObject({
      sub: "user_good",
      aud: mock.clientId,
      iss: mock.idpUrl,
      accounts: ["ACC-1001", "ACC-1003"],
      connectorId: "sandbox-bank",
      nonce: request.nonce,
    });

    // The approval is a consent grant of the ticked accounts, served by the consents API.
    const grant = await (await ctx.api(`/consents/v1/${encodeURIComponent(claims.grant_id as string)}`)).json();
    expect(grant).toMatchObject({ id: claims.grant_id, status: "ACTIVE" });
    expect(grant.resources.map((r: { resourceType: string; resourceId: string }) => `${r.resourceType}:${r.resourceId}`)).toEqual([
      "ACCOUNT:ACC-1001",
      "ACCOUNT:ACC-1003",
    ]);
    expect(grant.parties.length).toBeGreaterThan(0);
  });

  it("keeps a query the redirect URI has and matches a loopback redirect on any port, also on localhost", async () => {
    const mock = await startMockServer({ redirectUris: ["http://localhost/cb?app=1", "https://app.example.com/oauth/callback"] });
    try {
      const loopback = authorizationRequest(mock, { redirect_uri: "http://localhost:49152/cb?app=1" });
      const location = new URL(await approveInBrowser(loopback));
      expect(location.host).toBe("localhost:49152");
      expect(location.searchParams.get("app")).toBe("1");
      const exact = authorizationRequest(mock, { redirect_uri: "https://app.example.com/oauth/callback" });
      expect(await approveInBrowser(exact)).toMatch(/^https:\/\/app\.example\.com\/oauth\/callback\?code=/);
    } finally {
      await mock.close();
    }
  });

  it("says so and shows the form again on a wrong password, with the name kept and escaped", async () => {
    const browser = new Browser();
    const request = authorizationRequest(ctx.mock);
    const html = await (await browser.fetch(request.url)).text();
    const wrong = await browser.submit(request.url, html, { username: 'user_good"><b>x', password: "nope" }, "login");
    expect(wrong.status).toBe(400);
    const again = await wrong.text();
    expect(again).toContain("Wrong username or password.");
    expect(again).toContain('value="user_good&quot;&gt;&lt;b&gt;x"');
    expect(again).not.toContain("<b>x");
  });

  it("lets the second sandbox user share the weekly account", async () => {
    const request = authorizationRequest(ctx.mock);
    const location = await approveInBrowser(request, { username: "user_many", password: "pass_many", accounts: ["ACC-1004"] });
    expect(claimsOf((await exchange(ctx.mock, location, request)).id_token)).toMatchObject({ sub: "user_many", accounts: ["ACC-1004"] });
  });

  it("refuses an approval with no account ticked, or an account of another user", async () => {
    const browser = new Browser();
    const request = authorizationRequest(ctx.mock);
    const signIn = await (await browser.fetch(request.url)).text();
    const consent = await (await browser.submit(request.url, signIn, { username: "user_good", password: "pass_good" }, "login")).text();
    const none = await browser.submit(request.url, consent, {}, "approve", []);
    expect(none.status).toBe(400);
    expect(await none.text()).toContain("Tick at least one account");
    // A hand-made post naming an account the user does not own.
    const forged = await browser.submit(request.url, consent.replace('value="ACC-1002"', 'value="ACC-1004"'), {}, "approve");
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain("ACC-1004 is not one of your accounts.");
  });

  it("refuses an approval with a changed ticket, one made for another authorization request, or one past 10 minutes", async () => {
    const browser = new Browser();
    const request = authorizationRequest(ctx.mock);
    const signIn = await (await browser.fetch(request.url)).text();
    const consent = await (await browser.submit(request.url, signIn, { username: "user_good", password: "pass_good" }, "login")).text();
    const tampered = await browser.submit(request.url, consent.replace(/name="ticket" value="[^"]*"/, 'name="ticket" value="x.y"'), {}, "approve");
    expect(tampered.status).toBe(400);
    expect(await tampered.text()).toContain("This form was not opened in this browser, or one of its fields was changed.");
    // The same ticket with another state: bound to the request it was made for.
    const other = await browser.submit(request.url, consent.replace(/name="state" value="[^"]*"/, 'name="state" value="another"'), {}, "approve");
    expect(other.status).toBe(400);
    // The sign-in holds for 10 minutes.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 10 * 60 * 1000 + 1000);
      const late = await browser.submit(request.url, consent, {}, "approve");
      expect(late.status).toBe(400);
      expect(await late.text()).toContain("This page expired. Please sign in again.");
    } finally {
      vi.useRealTimers();
    }
    const unknownAction = await browser.submit(request.url, signIn, {}, "dance");
    expect(unknownAction.status).toBe(400);
    expect(await unknownAction.text()).toContain("Please sign in, or press Deny.");
  });
});

describe("deny, and requests that cannot go back to the app", () => {
  it("redirects a Deny, from either page, with error=access_denied and the state", async () => {
    const browser = new Browser();
    const request = authorizationRequest(ctx.mock);
    const signIn = await (await browser.fetch(request.url)).text();
    for (const html of [signIn, await (await browser.submit(request.url, signIn, { username: "user_good", password: "pass_good" }, "login")).text()]) {
      const denied = await browser.submit(request.url, html, {}, "deny");
      expect(denied.status).toBe(302);
      const callback = new URL(denied.headers.get("Location") as string);
      expect(callback.searchParams.get("error")).toBe("access_denied");
      expect(callback.searchParams.get("state")).toBe(request.state);
      expect(callback.searchParams.has("code")).toBe(false);
    }
    expect(ctx.mock.authStats().codesIssued).toBeGreaterThan(0); // from the tests above; a Deny issues none
  });

  it("shows a 400 error page, and no redirect, for an unknown client_id or an unregistered redirect_uri", async () => {
    const browser = new Browser();
    const cases: Record<string, string | null>[] = [
      { client_id: "someone-else" },
      { client_id: null },
      { redirect_uri: "https://evil.example/callback" },
      { redirect_uri: "http://127.0.0.1:8123/callback/../callback" },
      { redirect_uri: "http://127.0.0.1:8123/other" },
      { redirect_uri: "http://127.0.0.1:8123/callback#frag" },
      { redirect_uri: "not a url" },
      { redirect_uri: null },
    ];
    for (const params of cases) {
      const response = await fetch(authorizationRequest(ctx.mock, params).url, { redirect: "manual" });
      expect(response.status, JSON.stringify(params)).toBe(400);
      expect(response.headers.get("Location")).toBeNull();
      expect(await response.text()).toContain("This request cannot be completed");
    }
    // Posting the form to the IdP with a changed redirect_uri gets the same page.
    const request = authorizationRequest(ctx.mock);
    const html = (await (await browser.fetch(request.url)).text()).replace(CALLBACK, "https://evil.example/callback");
    const posted = await browser.submit(request.url, html, {}, "deny");
    expect([posted.status, posted.headers.get("Location")]).toEqual([400, null]);
  });

  it("redirects the errors of a request it can send back: response type, scope, PKCE method, connector, repeats", async () => {
    const cases: [Record<string, string | null>, string][] = [
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ response_type: null }, "invalid_request"],
      [{ scope: "profile" }, "invalid_scope"],
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ code_challenge: "short" }, "invalid_request"],
      [{ code_challenge: null }, "invalid_request"],
      [{ connector: "" }, "invalid_request"],
    ];
    for (const [params, error] of cases) {
      const request = authorizationRequest(ctx.mock, params);
      const response = await fetch(request.url, { redirect: "manual" });
      expect(response.status, JSON.stringify(params)).toBe(302);
      const callback = new URL(response.headers.get("Location") as string);
      expect(callback.searchParams.get("error"), JSON.stringify(params)).toBe(error);
      expect(callback.searchParams.get("state")).toBe(request.state);
    }
    const repeated = await fetch(`${authorizationRequest(ctx.mock).url}&nonce=again`, { redirect: "manual" });
    expect(new URL(repeated.headers.get("Location") as string).searchParams.get("error_description")).toBe("The nonce parameter is repeated");
    const twoClients = await fetch(`${authorizationRequest(ctx.mock).url}&client_id=x`, { redirect: "manual" });
    expect(twoClients.status).toBe(400);
  });

  it("takes any connector and names it in the id token", async () => {
    const request = authorizationRequest(ctx.mock, { connector: "mikomo" });
    const tokens = await exchange(ctx.mock, await approveInBrowser(request), request);
    expect(claimsOf(tokens.id_token).connectorId).toBe("mikomo");
  });

  it("accepts a request without PKCE or nonce (then the id token has no nonce)", async () => {
    const request = authorizationRequest(ctx.mock, { code_challenge: null, code_challenge_method: null, nonce: null, connector: null });
    const callback = await approveInBrowser(request);
    const code = new URL(callback).searchParams.get("code") as string;
    const answer = await post(ctx.mock, "token", { grant_type: "authorization_code", code, redirect_uri: CALLBACK });
    expect(answer.status).toBe(200);
    const claims = claimsOf((await answer.json()).id_token);
    expect(claims.nonce).toBeUndefined();
    expect(claims.connectorId).toBe("sandbox-bank");
  });
});

describe("HTML escaping", () => {
  it("escapes hostile values in every page: error page, sign-in, hidden fields, consent", async () => {
    const browser = new Browser();
    const hostile = `"><script>alert(1)</script><img src=x onerror=alert(2)>'&`;
    const unknown = await (await fetch(authorizationRequest(ctx.mock, { client_id: hostile }).url)).text();
    const unregistered = await (await fetch(authorizationRequest(ctx.mock, { redirect_uri: `https://x.example/${hostile}` }).url)).text();
    const request = authorizationRequest(ctx.mock, { state: hostile, nonce: hostile, login_hint: hostile });
    const signIn = await (await browser.fetch(request.url)).text();
    const consent = await (await browser.submit(request.url, signIn, { username: "user_good", password: "pass_good" }, "login")).text();
    for (const html of [unknown, unregistered, signIn, consent]) {
      expect(html).not.toContain("<script>");
      expect(html).not.toContain("<img");
      expect(html).toMatch(/&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    }
    // The escaped values still post back exactly: the state survives the round trip.
    const approved = await browser.submit(request.url, consent, {}, "approve");
    expect(new URL(approved.headers.get("Location") as string).searchParams.get("state")).toBe(hostile);
  });
});

describe("mock.authorize", () => {
  it("approves as seed.users[0] with all their accounts by default, or as given, or denies", async () => {
    const { mock } = ctx;
    expect(mock.seed.users[0]).toEqual({ username: "user_good", password: "pass_good", accounts: ["ACC-1001", "ACC-1002", "ACC-1003"] });
    const first = authorizationRequest(mock);
    const callback = await mock.authorize(first.url);
    expect(new URL(callback).searchParams.get("state")).toBe(first.state);
    expect(claimsOf((await exchange(mock, callback, first)).id_token).accounts).toEqual(["ACC-1001", "ACC-1002", "ACC-1003"]);

    const second = authorizationRequest(mock);
    const chosen = await mock.authorize(second.url, { username: "user_many", accounts: ["ACC-1005"] });
    expect(claimsOf((await exchange(mock, chosen, second)).id_token)).toMatchObject({ sub: "user_many", accounts: ["ACC-1005"] });

    const denied = new URL(await mock.authorize(authorizationRequest(mock).url, { deny: true }));
    expect(denied.searchParams.get("error")).toBe("access_denied");
  });

  it("returns an error redirect as a browser would land on it, and rejects what a browser could not finish", async () => {
    const { mock } = ctx;
    const badScope = new URL(await mock.authorize(authorizationRequest(mock, { scope: "email" }).url));
    expect(badScope.searchParams.get("error")).toBe("invalid_scope");
    await expect(mock.authorize(authorizationRequest(mock, { client_id: "nobody" }).url)).rejects.toThrow('Unknown client_id "nobody"');
    await expect(mock.authorize(authorizationRequest(mock).url, { username: "ghost" })).rejects.toThrow('Unknown sandbox user "ghost"');
    await expect(mock.authorize(authorizationRequest(mock).url, { accounts: ["ACC-1004"] })).rejects.toThrow("ACC-1004 is not one of your accounts.");
    await expect(mock.authorize(`${mock.baseUrl}/auth?client_id=x`)).rejects.toThrow(TypeError);
  });

  it("uses the registered redirect URIs, by default the loopback ones", () => {
    expect(DEFAULT_REDIRECT_URIS).toEqual(["http://127.0.0.1/callback", "http://localhost/callback"]);
  });
});
