// The sandbox IdP behind msw handlers: the same pages and endpoints on a
// fake origin of its own, and the options that place and shape it.
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMockApp, createMockHandlers, DEFAULT_IDP_URL, type Notification } from "../src/index.js";
import { approveInBrowser, authorizationRequest, claimsOf, exchange, post } from "./idp-helpers.js";

const handlers = createMockHandlers({ requireUserTokens: true, redirectUris: ["http://127.0.0.1/callback", "https://app.example.com/callback"] });
const mock = handlers.mock;
const received: Notification[] = [];
const receiver = http.post("https://receiver.example.com/hook", async ({ request }) => {
  received.push((await request.json()) as Notification);
  return new HttpResponse(null, { status: 204 });
});
const server = setupServer(...handlers, receiver);

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => mock.reset());
afterAll(() => server.close());

describe("the IdP under msw", () => {
  it("serves the IdP at its own fake origin", async () => {
    expect(DEFAULT_IDP_URL).toBe("https://idp.sandbox.fdxkit.test");
    expect(mock.idpUrl).toBe(DEFAULT_IDP_URL);
    const discovery = await (await fetch(`${mock.idpUrl}/.well-known/openid-configuration`)).json();
    expect(discovery.issuer).toBe(DEFAULT_IDP_URL);
    expect((await (await fetch(discovery.jwks_uri)).json()).keys).toHaveLength(1);
  });

  it("runs the whole flow: pages, code, statements with the id token, refresh, revokeConsent with its webhook", async () => {
    const request = authorizationRequest(mock);
    const callback = await approveInBrowser(request, { accounts: ["ACC-1002"] });
    const tokens = await exchange(mock, callback, request);
    const auth = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
    expect((await fetch(`${mock.productsUrl}/statements/v2/sandbox-bank/ACC-1002`, auth(tokens.id_token))).status).toBe(200);
    expect((await fetch(`${mock.productsUrl}/statements/v2/sandbox-bank/ACC-1002`, auth(mock.token))).status).toBe(401);

    const refreshed = await post(mock, "token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token }, "post");
    expect(refreshed.status).toBe(200);

    await fetch(`${mock.baseUrl}/notifications/v1/subscriptions`, {
      method: "POST",
      headers: { Authorization: `Bearer ${mock.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://receiver.example.com/hook" }),
    });
    const consentId = claimsOf(tokens.id_token).grant_id as string;
    await mock.revokeConsent(consentId);
    await mock.idle();
    expect(received.map((n) => [n.type, n.notificationPayload.id])).toEqual([["CONSENT_REVOKED", consentId]]);
    expect((await fetch(`${mock.productsUrl}/statements/v2/sandbox-bank/ACC-1002`, auth(tokens.id_token))).status).toBe(401);
    expect(mock.authStats()).toEqual({ codesIssued: 1, codesExchanged: 1, refreshes: 1, refreshesRejected: 0, revocations: 0 });
  });

  it("redirects to a registered non-loopback URI only when it matches exactly", async () => {
    expect(await mock.authorize(authorizationRequest(mock, { redirect_uri: "https://app.example.com/callback" }).url)).toMatch(
      /^https:\/\/app\.example\.com\/callback\?code=/,
    );
    for (const uri of ["https://app.example.com:8443/callback", "https://app.example.com/callback/", "http://localhost/callback"]) {
      await expect(mock.authorize(authorizationRequest(mock, { redirect_uri: uri }).url), uri).rejects.toThrow("is not registered");
    }
  });

  it("mounts under a path: an issuer that is not an origin's root", async () => {
    const custom = createMockHandlers({ idpUrl: "https://login.bank.test/sandbox/", baseUrl: "https://api.bank.test" });
    server.use(...custom);
    try {
      expect(custom.mock.idpUrl).toBe("https://login.bank.test/sandbox");
      const discovery = await (await fetch("https://login.bank.test/sandbox/.well-known/openid-configuration")).json();
      expect(discovery).toMatchObject({ issuer: "https://login.bank.test/sandbox", token_endpoint: "https://login.bank.test/sandbox/token" });
      const request = authorizationRequest(custom.mock);
      const callback = new URL(await approveInBrowser(request));
      expect(callback.searchParams.get("iss")).toBe("https://login.bank.test/sandbox");
      // The app (msw mounts only the issuer's path) answers the rest of that origin 404.
      expect((await custom.mock.fetch(new Request("https://login.bank.test/elsewhere"))).status).toBe(404);
    } finally {
      server.resetHandlers();
    }
  });
});

describe("idpIssuer", () => {
  it("names a path issuer in discovery, id tokens and callbacks; the endpoints stay absolute URLs", async () => {
    const network = createMockHandlers({ idpIssuer: "/sandbox", idpUrl: "https://idp.network.test", baseUrl: "https://api.network.test" });
    server.use(...network);
    try {
      expect(network.mock.idpUrl).toBe("https://idp.network.test");
      const discovery = await (await fetch("https://idp.network.test/.well-known/openid-configuration")).json();
      expect(discovery).toMatchObject({
        issuer: "/sandbox",
        authorization_endpoint: "https://idp.network.test/auth",
        token_endpoint: "https://idp.network.test/token",
      });
      const request = authorizationRequest(network.mock);
      const callback = await approveInBrowser(request);
      expect(new URL(callback).searchParams.get("iss")).toBe("/sandbox");
      expect(claimsOf((await exchange(network.mock, callback, request)).id_token).iss).toBe("/sandbox");
      const denied = new URL(await network.mock.authorize(authorizationRequest(network.mock).url, { deny: true }));
      expect(denied.searchParams.get("iss")).toBe("/sandbox");
    } finally {
      server.resetHandlers();
    }
  });
});

describe("IdP options", () => {
  it("refuses bad values when the mock is created", () => {
    expect(() => createMockApp({ idpUrl: "https://sandbox.fdxkit.test/idp" })).toThrow("idpUrl must be another origin");
    expect(() => createMockApp({ documents: "redirect", idpUrl: "https://documents.sandbox.fdxkit.test" })).toThrow("idpUrl must be another origin");
    expect(() => createMockApp({ redirectUris: [] })).toThrow("redirectUris must be a non-empty array");
    expect(() => createMockApp({ redirectUris: ["/callback"] })).toThrow("absolute URLs without a fragment");
    expect(() => createMockApp({ redirectUris: ["http://127.0.0.1/cb#x"] })).toThrow("absolute URLs without a fragment");
    expect(() => createMockApp({ idTokenTtlMs: 0 })).toThrow("idTokenTtlMs must be a finite number > 0");
    expect(() => createMockApp({ codeTtlMs: Number.NaN })).toThrow("codeTtlMs must be a finite number > 0");
    expect(() => createMockApp({ requireUserTokens: "yes" as unknown as boolean })).toThrow("requireUserTokens must be a boolean");
    expect(() => createMockApp({ idpIssuer: "" })).toThrow('idpIssuer must be a non-empty string without spaces, got ""');
    expect(() => createMockApp({ idpIssuer: "/sand box" })).toThrow("idpIssuer must be a non-empty string without spaces");
    expect(() => createMockApp({ idpIssuer: 7 as unknown as string })).toThrow("idpIssuer must be a non-empty string without spaces, got 7");
  });
});
