// The IdP's pages bound to the browser that opened them: its cookies, the
// forms' signed tickets, prompt and max_age, and the headers of its answers.
import { afterEach, describe, expect, it, vi } from "vitest";
import { useMockServer } from "./helpers.js";
import { authorizationRequest, Browser, CALLBACK, claimsOf, exchange, formBody, formPost, post } from "./idp-helpers.js";

const ctx = useMockServer();
const NOT_BOUND = "This form was not opened in this browser, or one of its fields was changed.";

afterEach(() => {
  vi.useRealTimers();
});

/** A browser signed in at the IdP, on the consent page of `request`. */
async function onConsentPage(params: Record<string, string | null> = {}) {
  const browser = new Browser();
  const request = authorizationRequest(ctx.mock, params);
  const signIn = await (await browser.fetch(request.url)).text();
  const consent = await (await browser.submit(request.url, signIn, { username: "user_good", password: "pass_good" }, "login")).text();
  expect(consent).toContain("Signed in as <strong>user_good</strong>");
  return { browser, request, signIn, consent, action: `${ctx.mock.idpUrl}/auth` };
}

/** Expects the error page, no redirect and no code issued. */
async function expectRefused(response: Response, codesBefore: number, message = NOT_BOUND) {
  expect(response.status).toBe(400);
  expect(response.headers.get("Location")).toBeNull();
  const html = await response.text();
  expect(html).toContain("This request cannot be completed");
  expect(html).toContain(message);
  expect(ctx.mock.authStats().codesIssued).toBe(codesBefore);
}

describe("cookies", () => {
  it("sets an HttpOnly, SameSite=Lax browser cookie on the first page and a session cookie on sign-in", async () => {
    const { browser } = await onConsentPage();
    const port = new URL(ctx.mock.idpUrl).port;
    expect(browser.setCookies).toEqual([
      expect.stringMatching(new RegExp(`^fdxkit_idp_browser_${port}=[\\w-]{43}; Path=/; HttpOnly; SameSite=Lax$`)),
      expect.stringMatching(new RegExp(`^fdxkit_idp_session_${port}=[\\w-]+\\.[\\w-]{43}; Path=/; HttpOnly; SameSite=Lax$`)),
    ]);
  });
});

describe("forms bound to the browser", () => {
  it("refuses an Approve replayed without the browser's cookie, or from another browser: 400 page, no code", async () => {
    const { consent, action } = await onConsentPage();
    const before = ctx.mock.authStats().codesIssued;
    const body = formBody(consent, {}, "approve");
    // Another site's form: a SameSite=Lax cookie does not come along on a cross-site POST.
    await expectRefused(await fetch(action, formPost(body)), before);
    // Another browser, with a browser cookie of its own.
    const other = new Browser();
    await other.fetch(authorizationRequest(ctx.mock).url);
    await expectRefused(await other.fetch(action, formPost(body)), before);
  });

  it("refuses a sign-in form posted without the browser's cookie (no sign-in forced on a user by another site)", async () => {
    const browser = new Browser();
    const request = authorizationRequest(ctx.mock);
    const signIn = await (await browser.fetch(request.url)).text();
    const body = formBody(signIn, { username: "user_many", password: "pass_many" }, "login");
    await expectRefused(await fetch(`${ctx.mock.idpUrl}/auth`, formPost(body)), ctx.mock.authStats().codesIssued);
  });

  it("refuses an Approve with any field of the authorization request changed", async () => {
    const changes: Record<string, string> = {
      connector: "another-bank",
      scope: "openid offline_access extra",
      state: "another-state",
      nonce: "another-nonce",
      redirect_uri: "http://127.0.0.1:9999/callback",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      prompt: "login",
    };
    for (const [name, value] of Object.entries(changes)) {
      const { browser, consent, action } = await onConsentPage();
      const before = ctx.mock.authStats().codesIssued;
      const body = formBody(consent, {}, "approve");
      body.set(name, value);
      await expectRefused(await browser.fetch(action, formPost(body)), before);
    }
    // Dropping PKCE altogether is a change too.
    const { browser, consent, action } = await onConsentPage();
    const body = formBody(consent, {}, "approve");
    body.delete("code_challenge");
    body.delete("code_challenge_method");
    await expectRefused(await browser.fetch(action, formPost(body)), ctx.mock.authStats().codesIssued);
  });

  it("takes one approval per ticket: the same Approve sent again gets no second code", async () => {
    const { browser, consent, action } = await onConsentPage();
    const body = formBody(consent, {}, "approve");
    const first = await browser.fetch(action, formPost(body));
    expect(first.status).toBe(302);
    expect(new URL(first.headers.get("Location") as string).searchParams.get("code")).toMatch(/^[\w-]{43}$/);
    await expectRefused(await browser.fetch(action, formPost(body)), ctx.mock.authStats().codesIssued, "This approval was already sent once.");
  });

  it("redirects Approve and Deny with 302, never 307, so the app's SameSite=Lax cookie comes along", async () => {
    const { browser, consent, action, request } = await onConsentPage();
    const denied = await browser.fetch(action, formPost(formBody(consent, {}, "deny")));
    expect(denied.status).toBe(302);
    const approved = await browser.fetch(action, formPost(formBody(consent, {}, "approve")));
    expect(approved.status).toBe(302);
    expect(approved.headers.get("Location")).toMatch(new RegExp(`^${CALLBACK}\\?code=[\\w-]{43}&state=${request.state}&iss=`));
  });

  it("shows the consent page at once to a signed-in browser, with a way to sign in as someone else", async () => {
    const { browser } = await onConsentPage();
    const request = authorizationRequest(ctx.mock);
    const again = await (await browser.fetch(request.url)).text();
    expect(again).toContain("Signed in as <strong>user_good</strong>");
    const switched = await browser.submit(request.url, again, {}, "switch");
    expect(switched.status).toBe(200);
    const signIn = await switched.text();
    const consent = await (await browser.submit(request.url, signIn, { username: "user_many", password: "pass_many" }, "login")).text();
    expect(consent).toContain("Signed in as <strong>user_many</strong>");
    const approved = await browser.submit(request.url, consent, {}, "approve");
    expect(claimsOf((await exchange(ctx.mock, approved.headers.get("Location") as string, request)).id_token).sub).toBe("user_many");
  });
});

describe("prompt and max_age", () => {
  it("prompt=none without a signed-in browser redirects with login_required, the state and iss", async () => {
    const request = authorizationRequest(ctx.mock, { prompt: "none" });
    const answer = await new Browser().fetch(request.url);
    expect(answer.status).toBe(302);
    const callback = new URL(answer.headers.get("Location") as string);
    expect(Object.fromEntries(callback.searchParams)).toEqual({
      error: "login_required",
      error_description: "The user is not signed in",
      state: request.state,
      iss: ctx.mock.idpUrl,
    });
  });

  it("prompt=none in a signed-in browser: consent_required (every approval is asked); mock.authorize keeps its browser's session until reset()", async () => {
    const { browser } = await onConsentPage();
    const signedIn = await browser.fetch(authorizationRequest(ctx.mock, { prompt: "none" }).url);
    expect(new URL(signedIn.headers.get("Location") as string).searchParams.get("error")).toBe("consent_required");

    await ctx.mock.authorize(authorizationRequest(ctx.mock).url);
    const silent = new URL(await ctx.mock.authorize(authorizationRequest(ctx.mock, { prompt: "none" }).url));
    expect(silent.searchParams.get("error")).toBe("consent_required");
    ctx.mock.reset();
    const afterReset = new URL(await ctx.mock.authorize(authorizationRequest(ctx.mock, { prompt: "none" }).url));
    expect(afterReset.searchParams.get("error")).toBe("login_required");
  });

  it("prompt=login asks a signed-in browser to sign in again; bad prompt or max_age values are invalid_request", async () => {
    const { browser } = await onConsentPage();
    const login = await (await browser.fetch(authorizationRequest(ctx.mock, { prompt: "login" }).url)).text();
    expect(login).toContain('name="password"');
    const cases: [Record<string, string>, string][] = [
      [{ prompt: "none login" }, "prompt=none cannot be combined with other values"],
      [{ prompt: "sometimes" }, "prompt=sometimes is not supported"],
      [{ max_age: "-1" }, "max_age must be a number of seconds"],
      [{ max_age: "soon" }, "max_age must be a number of seconds"],
    ];
    for (const [params, description] of cases) {
      const answer = await browser.fetch(authorizationRequest(ctx.mock, params).url);
      const callback = new URL(answer.headers.get("Location") as string);
      expect([callback.searchParams.get("error"), callback.searchParams.get("error_description")]).toEqual(["invalid_request", description]);
    }
  });

  it("max_age: a sign-in older than it must be repeated; auth_time is when the user signed in", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const signedInAt = Date.now();
    const { browser } = await onConsentPage();
    vi.setSystemTime(signedInAt + 59_000);
    const recent = authorizationRequest(ctx.mock, { max_age: "60" });
    const consent = await (await browser.fetch(recent.url)).text();
    expect(consent).toContain("Signed in as <strong>user_good</strong>");
    const approved = await browser.submit(recent.url, consent, {}, "approve");
    const claims = claimsOf((await exchange(ctx.mock, approved.headers.get("Location") as string, recent)).id_token);
    expect(claims.auth_time).toBe(Math.floor(signedInAt / 1000));

    vi.setSystemTime(signedInAt + 61_000);
    const old = await (await browser.fetch(authorizationRequest(ctx.mock, { max_age: "60" }).url)).text();
    expect(old).toContain('name="password"');
    expect(old).not.toContain("Signed in as");
    const none = await browser.fetch(authorizationRequest(ctx.mock, { max_age: "60", prompt: "none" }).url);
    expect(new URL(none.headers.get("Location") as string).searchParams.get("error")).toBe("login_required");
  });
});

describe("headers", () => {
  it("frames no page: X-Frame-Options DENY and frame-ancestors 'none' on the sign-in, consent and error pages", async () => {
    const browser = new Browser();
    const request = authorizationRequest(ctx.mock);
    const pages = [
      await browser.fetch(request.url),
      await browser.fetch(authorizationRequest(ctx.mock, { client_id: "nobody" }).url),
      await fetch(`${ctx.mock.idpUrl}/auth`, formPost(new URLSearchParams(new URL(request.url).searchParams))),
    ];
    const signIn = await pages[0]!.clone().text();
    pages.push(await browser.submit(request.url, signIn, { username: "user_good", password: "pass_good" }, "login"));
    for (const page of pages) {
      expect(page.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
      expect(page.headers.get("X-Frame-Options")).toBe("DENY");
      expect(page.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
    }
  });

  it("sends no Access-Control-Allow-Origin from the pages, /token and /revoke; discovery and /keys keep CORS", async () => {
    const request = authorizationRequest(ctx.mock);
    const browser = new Browser();
    const page = await browser.fetch(request.url);
    const posted = await browser.submit(request.url, await page.clone().text(), { username: "user_good", password: "pass_good" }, "login");
    const token = await post(ctx.mock, "token", { grant_type: "refresh_token", refresh_token: "x" });
    const revoke = await post(ctx.mock, "revoke", { token: "x" });
    const preflight = await fetch(`${ctx.mock.idpUrl}/token`, {
      method: "OPTIONS",
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" },
    });
    for (const answer of [page, posted, token, revoke, preflight]) expect(answer.headers.get("Access-Control-Allow-Origin"), answer.url).toBeNull();
    for (const path of ["/.well-known/openid-configuration", "/keys"]) {
      expect((await fetch(`${ctx.mock.idpUrl}${path}`)).headers.get("Access-Control-Allow-Origin")).toBe("*");
    }
  });

  it("answers a 401 from /token and /revoke with WWW-Authenticate: Basic", async () => {
    for (const endpoint of ["token", "revoke"] as const) {
      const answer = await post(
        ctx.mock,
        endpoint,
        { grant_type: "refresh_token", refresh_token: "x", token: "x" },
        { id: ctx.mock.clientId, secret: "wrong" },
      );
      expect(answer.status).toBe(401);
      expect(answer.headers.get("WWW-Authenticate")).toBe('Basic realm="fdxkit-sandbox"');
      expect(await answer.json()).toEqual({ error: "invalid_client", error_description: "Client authentication failed" });
    }
  });
});
