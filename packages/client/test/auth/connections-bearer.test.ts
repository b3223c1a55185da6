// Connections against a standard provider: a refresh window capped at half
// the token's lifetime, the access token as the bearer, refresh answers
// without an id token, and answers without the tokens a connection needs.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createAuthClient,
  createConnections,
  FdxAuthError,
  memoryConnectionStore,
  type AuthClient,
  type ConnectionsOptions,
  type ConnectionStore,
} from "../../src/auth/index.js";
import { FdxResponseError, FdxValidationError } from "../../src/index.js";
import { rejectionOf } from "../support/http.js";
import { CLIENT_ID, CLIENT_SECRET, ISSUER, REDIRECT_URI, startIdp, type TestIdp } from "../support/idp.js";

let idp: TestIdp;
let auth: AuthClient;
beforeAll(async () => {
  idp = await startIdp();
  auth = createAuthClient({ issuer: idp.url, expectedIssuer: ISSUER, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI });
});
afterAll(() => idp.close());
afterEach(() => {
  vi.useRealTimers();
  idp.override = undefined;
  idp.extraClaims = {};
  idp.extraAnswer = {};
  idp.accessTokenTtlS = undefined;
  idp.idTokenTtlS = 3600;
});

// The default refresh window (5 min), as a user gets it.
const make = (store: ConnectionStore = memoryConnectionStore(), extra: Partial<ConnectionsOptions> = {}) => createConnections({ auth, store, ...extra });
const refreshes = () => idp.stats.refreshes;
async function connect(connections: ReturnType<typeof createConnections>, id = "user-42", checks: Record<string, unknown> = {}) {
  const req = await auth.authorizationUrl({ connector: "mikomo" });
  return connections.complete(id, idp.callback(req.url), { ...req, ...checks });
}
/** Moves the clock of Date (the tokens' times, on both sides) to `ms` after `start`. */
const at = (start: number, ms: number) => vi.setSystemTime(start + ms);
const frozen = () => {
  const start = Date.now();
  vi.useFakeTimers({ toFake: ["Date"], now: start });
  return start;
};

describe("the refresh window: refreshBeforeMs, never more than half the token's lifetime", () => {
  it("6 s id tokens are used for about 3 s, not refreshed on every call", async () => {
    idp.idTokenTtlS = 6;
    const start = frozen();
    const connections = make();
    const connection = await connect(connections);
    const token = connections.token("user-42");
    const before = refreshes();
    for (const ms of [0, 500, 1000, 1500, 2000]) {
      at(start, ms);
      expect(await token()).toBe(connection.idToken);
    }
    expect(refreshes()).toBe(before);
    at(start, 3500);
    const second = await token();
    expect(second).not.toBe(connection.idToken);
    expect(refreshes()).toBe(before + 1);
  });

  it("over a minute of calls every 500 ms, 6 s tokens are refreshed about twice a lifetime", async () => {
    idp.idTokenTtlS = 6;
    const start = frozen();
    const connections = make();
    await connect(connections);
    const token = connections.token("user-42");
    const before = refreshes();
    for (let ms = 0; ms < 60_000; ms += 500) {
      at(start, ms);
      await token();
    }
    // Every 3 s (a refresh lands up to 1 s into its token's life, as exp and iat are whole seconds): 120 calls, not 120 refreshes.
    expect(refreshes() - before).toBeGreaterThanOrEqual(15);
    expect(refreshes() - before).toBeLessThanOrEqual(21);
  });

  it("a long-lived token keeps the whole refreshBeforeMs", async () => {
    const start = frozen();
    const connections = make(memoryConnectionStore(), { refreshBeforeMs: 60_000 });
    const connection = await connect(connections);
    const before = refreshes();
    at(start, 3600_000 - 61_000);
    expect(await connections.token("user-42")()).toBe(connection.idToken);
    at(start, 3600_000 - 59_000);
    expect(await connections.token("user-42")()).not.toBe(connection.idToken);
    expect(refreshes()).toBe(before + 1);
  });

  for (const [name, iat] of [
    ["no iat", undefined],
    ["an iat at exp", "exp"],
    ["an iat after exp", "later"],
    ["an iat that is not a number", "text"],
  ] as const) {
    it(`with ${name} there is no cap: a 6 s token is inside the 5 min window at once`, async () => {
      idp.idTokenTtlS = 6;
      const exp = (minted: Record<string, unknown>) => minted.exp as number;
      idp.extraClaims = {
        iat: iat === "exp" ? exp : iat === "later" ? (minted: Record<string, unknown>) => exp(minted) + 54 : iat === "text" ? "now" : undefined,
      };
      const connections = make();
      await connect(connections);
      const before = refreshes();
      await connections.token("user-42")();
      await connections.token("user-42")();
      expect(refreshes()).toBe(before + 2);
    });
  }
});

describe('bearer: "access_token"', () => {
  it("hands out the access token, and judges its expiry by expires_in, not the id token's exp", async () => {
    idp.accessTokenTtlS = 60;
    const start = frozen();
    const byAccess = make(memoryConnectionStore(), { bearer: "access_token" });
    const byId = make(memoryConnectionStore());
    const a = await connect(byAccess, "a");
    const b = await connect(byId, "b");
    expect(a.accessToken).toMatch(/^at-/);
    expect(await byAccess.token("a")()).toBe(a.accessToken);
    expect(await byId.token("b")()).toBe(b.idToken);
    const before = refreshes();
    // Half of 60 s: the access token is due at 30 s, the hour-long id token is not.
    at(start, 29_000);
    expect(await byAccess.token("a")()).toBe(a.accessToken);
    at(start, 31_000);
    const next = await byAccess.token("a")();
    expect(next).not.toBe(a.accessToken);
    expect(next).toMatch(/^at-/);
    expect(await byId.token("b")()).toBe(b.idToken);
    expect(refreshes()).toBe(before + 1);
    expect(await byAccess.get("a")).toMatchObject({ accessToken: next });
  });

  it("refreshes after a rejection of the access token; a rejected id token is not its bearer", async () => {
    const connections = make(memoryConnectionStore(), { bearer: "access_token" });
    const connection = await connect(connections);
    const token = connections.token("user-42");
    const before = refreshes();
    expect(await token({ rejected: connection.idToken, signal: undefined })).toBe(connection.accessToken);
    expect(refreshes()).toBe(before);
    const next = await token({ rejected: connection.accessToken, signal: undefined });
    expect(next).not.toBe(connection.accessToken);
    expect(refreshes()).toBe(before + 1);
    // Known expiry: a second rejection within 30 s hands the token back rather than refreshing again.
    expect(await token({ rejected: next, signal: undefined })).toBe(next);
    expect(refreshes()).toBe(before + 1);
  });

  it("with no known expiry, the access token is used until rejected, and every rejection refreshes", async () => {
    idp.extraAnswer = { expires_in: undefined };
    const start = frozen();
    const connections = make(memoryConnectionStore(), { bearer: "access_token" });
    const connection = await connect(connections);
    expect(connection.accessTokenExpiresAt).toBe(0);
    const token = connections.token("user-42");
    const before = refreshes();
    at(start, 10 * 60_000);
    expect(await token()).toBe(connection.accessToken);
    expect(refreshes()).toBe(before);
    let current = connection.accessToken;
    for (let i = 1; i <= 3; i++) {
      const next = await token({ rejected: current, signal: undefined });
      expect(next).not.toBe(current);
      expect(refreshes()).toBe(before + i);
      current = next;
    }
  });

  it("keeps the id token and its claims when a refresh answer has none", async () => {
    const store = memoryConnectionStore();
    const connections = make(store, { bearer: "access_token" });
    const connection = await connect(connections);
    idp.extraAnswer = { id_token: undefined };
    const refreshed = await connections.refresh("user-42");
    expect(refreshed).toMatchObject({
      status: "active",
      idToken: connection.idToken,
      expiresAt: connection.expiresAt,
      subject: connection.subject,
      accounts: connection.accounts,
      connector: connection.connector,
      consentId: connection.consentId,
    });
    expect(refreshed.accessToken).not.toBe(connection.accessToken);
    expect(refreshed.refreshToken).not.toBe(connection.refreshToken);
    expect(await store.get("user-42")).toMatchObject({ idToken: connection.idToken, accessToken: refreshed.accessToken });
  });

  it("with the default bearer, a refresh answer without an id token is unreadable and the stored tokens stay", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    const connection = await connect(connections);
    idp.extraAnswer = { id_token: undefined };
    const error = await rejectionOf(connections.refresh("user-42"));
    expect(error).toBeInstanceOf(FdxResponseError);
    expect(await store.get("user-42")).toMatchObject({
      status: "active",
      idToken: connection.idToken,
      refreshToken: connection.refreshToken,
      lease: undefined,
    });
  });

  it("complete() of an answer without an access token throws and stores nothing, its refresh token revoked", async () => {
    idp.extraAnswer = { access_token: undefined };
    const store = memoryConnectionStore();
    const connections = make(store, { bearer: "access_token" });
    for (const id of ["user-42", () => "user-43"]) {
      const revoked = idp.revoked.length;
      const error = await rejectionOf(connect(connections, id as string));
      expect(error).toBeInstanceOf(FdxAuthError);
      expect(error).toMatchObject({
        error: "no_access_token",
        errorDescription: 'the provider sent no access token, and bearer: "access_token" hands one to data calls',
      });
      expect(idp.revoked.slice(revoked)).toEqual([expect.stringMatching(/^rt-/)]);
    }
    expect(await store.get("user-42")).toBeUndefined();
    expect(await store.get("user-43")).toBeUndefined();
    // The default bearer does not need one.
    expect(await connect(make(store))).toMatchObject({ accessToken: "", status: "active" });
  });

  it("revoke() erases the access token with the others", async () => {
    const store = memoryConnectionStore();
    const connections = make(store, { bearer: "access_token" });
    await connect(connections);
    await connections.revoke("user-42");
    expect(await store.get("user-42")).toMatchObject({ status: "revoked", idToken: "", refreshToken: "", accessToken: "" });
  });

  it("refuses a bearer that is neither", () => {
    const error = (() => {
      try {
        make(memoryConnectionStore(), { bearer: "refresh_token" as never });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues).toEqual([{ path: "bearer", message: 'must be "id_token" or "access_token"' }]);
  });
});

describe("complete() needs a refresh token", () => {
  it("throws no_refresh_token and stores nothing, even when the checks say requireRefreshToken: false", async () => {
    idp.extraAnswer = { refresh_token: undefined, scope: "openid" };
    const store = memoryConnectionStore();
    const connections = make(store);
    const revoked = idp.revoked.length;
    for (const checks of [{}, { requireRefreshToken: false }]) {
      const error = await rejectionOf(connect(connections, "user-42", checks));
      expect(error).toBeInstanceOf(FdxAuthError);
      expect(error).toMatchObject({ error: "no_refresh_token", errorDescription: expect.stringContaining('granted scope: "openid"') });
    }
    expect(await store.get("user-42")).toBeUndefined();
    // No refresh token came, so there is none to revoke.
    expect(idp.revoked.length).toBe(revoked);
  });
});
