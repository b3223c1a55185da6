// Statement calls with end users' id tokens, `requireUserTokens`, and the
// user revoking at the provider (`mock.revokeConsent`).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startMockServer, type MockServer, type Notification } from "../src/index.js";
import { MAX_CONSENTS } from "../src/idp/idp.js";
import { authorizationRequest, claimsOf, exchange, post, type TokenAnswer } from "./idp-helpers.js";

const CUSTOMER_NOT_AUTHORIZED = '{"code":602,"message":"Customer not authorized"}';
const SPENT = '{"error":"invalid_request","error_description":"Refresh token is invalid or has already been claimed by another client."}';

let strict: MockServer;
let lenient: MockServer;
beforeAll(async () => {
  [strict, lenient] = await Promise.all([startMockServer({ requireUserTokens: true }), startMockServer()]);
});
afterAll(() => Promise.all([strict?.close(), lenient?.close()]));
afterEach(() => {
  vi.useRealTimers();
});

/** A user's tokens: approved through the pages, code exchanged. */
async function connect(mock: MockServer, options: { username?: string; accounts?: string[] } = {}): Promise<TokenAnswer> {
  const request = authorizationRequest(mock);
  return exchange(mock, await mock.authorize(request.url, options), request);
}

const statements = (mock: MockServer, account: string, bearer?: string) =>
  fetch(`${mock.productsUrl}/statements/v2/sandbox-bank/${account}?limit=2`, bearer === undefined ? {} : { headers: { Authorization: `Bearer ${bearer}` } });

async function expect602(response: Response) {
  expect(response.status).toBe(401);
  expect(await response.text()).toBe(CUSTOMER_NOT_AUTHORIZED);
}

describe("requireUserTokens: true", () => {
  it("serves statement pages and documents to an id token of an active consent", async () => {
    const { id_token: idToken } = await connect(strict, { accounts: ["ACC-1001"] });
    const page = await statements(strict, "ACC-1001", idToken);
    expect(page.status).toBe(200);
    const body = await page.json();
    const href = body.statements[0].links[0].href as string;
    const pdf = await fetch(new URL(href, strict.productsUrl), { headers: { Authorization: `Bearer ${idToken}`, Accept: "application/pdf" } });
    expect([pdf.status, pdf.headers.get("Content-Type")]).toEqual([200, "application/pdf"]);
    // Links carry on with the same token.
    const next = await fetch(new URL(body.links.next.href, strict.productsUrl), { headers: { Authorization: `Bearer ${idToken}` } });
    expect(next.status).toBe(200);
  });

  it("answers 404 701 for an account outside the grant, on lists and documents", async () => {
    const { id_token: idToken } = await connect(strict, { accounts: ["ACC-1001"] });
    const outside = await statements(strict, "ACC-1002", idToken);
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({ code: 701, message: "Account not found" });
    const service = await (await statements(lenient, "ACC-1002", lenient.token)).json();
    const document = await fetch(new URL(service.statements[0].links[0].href, strict.productsUrl), { headers: { Authorization: `Bearer ${idToken}` } });
    expect([document.status, (await document.json()).code]).toEqual([404, 701]);
  });

  it("answers 401 602 to the service token, no token, a token of another IdP and a forged one", async () => {
    const { id_token: idToken } = await connect(lenient);
    const [header, payload] = idToken.split(".");
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claimsOf(idToken), accounts: ["ACC-1004"] })).toString("base64url")}.${idToken.split(".")[2]}`;
    for (const bearer of [strict.token, undefined, idToken, forged, `${header}.${payload}`, "not-a-jwt", "a.b!.c", "YQ.e30.AAAA"]) {
      await expect602(await statements(strict, "ACC-1001", bearer));
    }
    await expect602(await fetch(`${strict.productsUrl}/statements/v2/sandbox-bank/ACC-1001`, { headers: { Authorization: "Basic eDp5" } }));
  });

  it("answers 401 602 once the id token has expired (idTokenTtlMs)", async () => {
    const mock = await startMockServer({ requireUserTokens: true, idTokenTtlMs: 60_000 });
    try {
      const { id_token: idToken } = await connect(mock);
      expect((await statements(mock, "ACC-1001", idToken)).status).toBe(200);
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime((claimsOf(idToken).exp as number) * 1000);
      await expect602(await statements(mock, "ACC-1001", idToken));
    } finally {
      await mock.close();
    }
  });

  it("keeps the service token for subscriptions and consents; an id token there is 1205", async () => {
    const { id_token: idToken } = await connect(strict);
    const consent = `${strict.baseUrl}/consents/v1/${claimsOf(idToken).grant_id}`;
    expect((await fetch(consent, { headers: { Authorization: `Bearer ${strict.token}` } })).status).toBe(200);
    const refused = await fetch(consent, { headers: { Authorization: `Bearer ${idToken}` } });
    expect([refused.status, (await refused.json()).code]).toEqual([401, "1205"]);
  });
});

describe("access tokens", () => {
  it("are taken wherever id tokens are, within the grant, until they expire or the consent ends", async () => {
    const mock = await startMockServer({ requireUserTokens: true, idTokenTtlMs: 60_000 });
    try {
      const tokens = await connect(mock, { accounts: ["ACC-1001"] });
      expect((await statements(mock, "ACC-1001", tokens.access_token)).status).toBe(200);
      const outside = await statements(mock, "ACC-1002", tokens.access_token);
      expect([outside.status, (await outside.json()).code]).toEqual([404, 701]);
      // The one of an earlier answer stays good after a refresh, like the id token it came with.
      const refreshed = (await (await post(mock, "token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token })).json()) as TokenAnswer;
      expect((await statements(mock, "ACC-1001", refreshed.access_token)).status).toBe(200);
      expect((await statements(mock, "ACC-1001", tokens.access_token)).status).toBe(200);

      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime((claimsOf(refreshed.id_token).exp as number) * 1000);
      await expect602(await statements(mock, "ACC-1001", refreshed.access_token));
      vi.useRealTimers();

      const again = await connect(mock, { accounts: ["ACC-1001"] });
      expect((await statements(mock, "ACC-1001", again.access_token)).status).toBe(200);
      await mock.revokeConsent(claimsOf(again.id_token).grant_id as string);
      await expect602(await statements(mock, "ACC-1001", again.access_token));
    } finally {
      await mock.close();
    }
  });

  it("revoked alone at /revoke: refused from then on, while the consent and its refresh token live on", async () => {
    const tokens = await connect(lenient);
    expect((await statements(lenient, "ACC-1001", tokens.access_token)).status).toBe(200);
    expect((await post(lenient, "revoke", { token: tokens.access_token, token_type_hint: "access_token" })).status).toBe(200);
    const refused = await statements(lenient, "ACC-1001", tokens.access_token);
    expect([refused.status, (await refused.json()).code]).toEqual([401, "1205"]);
    expect((await post(lenient, "token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token })).status).toBe(200);
  });
});

describe("requireUserTokens: false (the default)", () => {
  it("serves statements to the service token and to a valid id token, within its grant", async () => {
    expect((await statements(lenient, "ACC-1004", lenient.token)).status).toBe(200);
    const { id_token: idToken } = await connect(lenient, { username: "user_many", accounts: ["ACC-1004"] });
    expect((await statements(lenient, "ACC-1004", idToken)).status).toBe(200);
    expect((await statements(lenient, "ACC-1001", idToken)).status).toBe(404);
  });

  it("answers 602 to an id token of this IdP that is no longer good, 1205 to anything else", async () => {
    const { id_token: idToken } = await connect(lenient);
    await lenient.revokeConsent(claimsOf(idToken).grant_id as string);
    await expect602(await statements(lenient, "ACC-1001", idToken));
    for (const bearer of [undefined, "nonsense"]) {
      const response = await statements(lenient, "ACC-1001", bearer);
      expect([response.status, (await response.json()).code]).toEqual([401, "1205"]);
    }
  });
});

describe("mock.revokeConsent", () => {
  let receiver: http.Server;
  let hookUrl = "";
  const received: Notification[] = [];
  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        received.push(JSON.parse(body));
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  async function subscribe(mock: MockServer, type: string): Promise<void> {
    const response = await fetch(`${mock.baseUrl}/notifications/v1/subscriptions`, {
      method: "POST",
      headers: { Authorization: `Bearer ${mock.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ category: "CONSENT", type, callbackUrl: hookUrl }),
    });
    expect(response.status).toBe(200);
  }

  it("revokes the consent: its tokens answer 602, its refresh token is refused, CONSENT_REVOKED is posted", async () => {
    const mock = await startMockServer({ requireUserTokens: true });
    try {
      await subscribe(mock, "CONSENT_REVOKED");
      await subscribe(mock, "CONSENT_UPDATED"); // another type: gets nothing
      const kept = await connect(mock);
      const tokens = await connect(mock);
      const consentId = claimsOf(tokens.id_token).grant_id as string;
      received.length = 0;

      await mock.revokeConsent(consentId);
      await expect602(await statements(mock, "ACC-1001", tokens.id_token));
      const refresh = await post(mock, "token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token });
      expect([refresh.status, await refresh.text()]).toEqual([400, SPENT]);
      const consent = await (await fetch(`${mock.baseUrl}/consents/v1/${consentId}`, { headers: { Authorization: `Bearer ${mock.token}` } })).json();
      expect(consent.status).toBe("REVOKED");

      await mock.idle();
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({
        category: "CONSENT",
        type: "CONSENT_REVOKED",
        notificationPayload: {
          id: consentId,
          idType: "CONSENT",
          customFields: [{ name: "status", value: "REVOKED" }],
          url: { href: `${mock.baseUrl}/consents/v1/${consentId}` },
        },
      });
      expect(mock.deliveries()).toEqual([expect.objectContaining({ url: hookUrl, status: "delivered" })]);

      // Another user's consent is untouched; revoking again posts nothing more.
      expect((await statements(mock, "ACC-1001", kept.id_token)).status).toBe(200);
      await mock.revokeConsent(consentId);
      await mock.idle();
      expect(received).toHaveLength(1);
      expect(mock.authStats().refreshesRejected).toBe(1);
    } finally {
      await mock.close();
    }
  });

  it("revokes a seeded consent in this instance only, and rejects an unknown id", async () => {
    const mock = await startMockServer();
    try {
      await subscribe(mock, "CONSENT_REVOKED");
      received.length = 0;
      await mock.revokeConsent("consent-active-1");
      await mock.idle();
      expect(received.map((n) => n.notificationPayload.id)).toEqual(["consent-active-1"]);
      const read = (m: MockServer) =>
        fetch(`${m.baseUrl}/consents/v1/consent-active-1`, { headers: { Authorization: `Bearer ${m.token}` } }).then((r) => r.json());
      expect((await read(mock)).status).toBe("REVOKED");
      expect((await read(lenient)).status).toBe("ACTIVE");
      await expect(mock.revokeConsent("consent-nope")).rejects.toThrow(RangeError);
      // reset() forgets it: the seed again.
      mock.reset();
      expect((await read(mock)).status).toBe("ACTIVE");
    } finally {
      await mock.close();
    }
  });
});

describe("bounded state and reset", () => {
  it("keeps at most MAX_CONSENTS consents: the oldest goes, with its refresh token", async () => {
    const mock = await startMockServer();
    try {
      const oldest = await connect(mock);
      const consentId = claimsOf(oldest.id_token).grant_id as string;
      for (let i = 0; i < MAX_CONSENTS; i++) await mock.authorize(authorizationRequest(mock).url);
      const consent = await fetch(`${mock.baseUrl}/consents/v1/${consentId}`, { headers: { Authorization: `Bearer ${mock.token}` } });
      expect(consent.status).toBe(404);
      const refresh = await post(mock, "token", { grant_type: "refresh_token", refresh_token: oldest.refresh_token });
      expect([refresh.status, await refresh.text()]).toEqual([400, SPENT]);
      await expect602(await statements(mock, "ACC-1001", oldest.id_token));
    } finally {
      await mock.close();
    }
  });

  it("reset() forgets codes, refresh tokens, consents and counts", async () => {
    const mock = await startMockServer();
    try {
      const tokens = await connect(mock);
      const request = authorizationRequest(mock);
      const callback = await mock.authorize(request.url);
      expect(mock.authStats()).toEqual({ codesIssued: 2, codesExchanged: 1, refreshes: 0, refreshesRejected: 0, revocations: 0 });
      mock.reset();
      expect(mock.authStats()).toEqual({ codesIssued: 0, codesExchanged: 0, refreshes: 0, refreshesRejected: 0, revocations: 0 });
      expect((await post(mock, "token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token })).status).toBe(400);
      const code = new URL(callback).searchParams.get("code") as string;
      expect(
        (await post(mock, "token", { grant_type: "authorization_code", code, redirect_uri: "http://127.0.0.1:8123/callback", code_verifier: request.verifier }))
          .status,
      ).toBe(400);
    } finally {
      await mock.close();
    }
  });
});
