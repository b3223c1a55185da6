// connections.applyNotification: a consent webhook is a hint, the consent read through the API decides.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAuthClient,
  createConnections,
  memoryConnectionStore,
  type AuthClient,
  type Connection,
  type ConnectionStatus,
  type ConsentReader,
} from "../../src/auth/index.js";
import { FdxValidationError } from "../../src/index.js";
import { CLIENT_ID, CLIENT_SECRET, ISSUER, REDIRECT_URI, startIdp, type TestIdp } from "../support/idp.js";

let idp: TestIdp;
let auth: AuthClient;
beforeAll(async () => {
  idp = await startIdp();
  auth = createAuthClient({ issuer: idp.url, expectedIssuer: ISSUER, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI });
});
afterAll(() => idp.close());

/** A service client whose consents answer with `status`, counting the reads. */
function consentsAnswering(status: string | (() => Promise<{ status?: string }>)) {
  const reads: string[] = [];
  const client: ConsentReader = {
    consents: {
      get: async (consentId) => {
        reads.push(consentId);
        return typeof status === "string" ? { id: consentId, status } : status();
      },
    },
  };
  return { client, reads };
}

const notice = (type: "CONSENT_REVOKED" | "CONSENT_UPDATED", consentId: string) => ({
  notificationId: `n-${Math.random()}`,
  category: "CONSENT",
  type,
  notificationPayload: { id: consentId, idType: "CONSENT" },
});

async function setUp(accounts = ["acct-1"]) {
  const changes: Array<[ConnectionStatus, ConnectionStatus | undefined]> = [];
  const store = memoryConnectionStore();
  const connections = createConnections({ auth, store, onStatusChange: (c, previous) => void changes.push([c.status, previous]) });
  const request = await auth.authorizationUrl({ connector: "mikomo" });
  const grantId = `consent-${Math.random().toString(36).slice(2)}`;
  const connection = await connections.complete("user-1", idp.callback(request.url, { grantId, accounts }), request);
  changes.length = 0;
  return { connections, store, connection, grantId, changes };
}

describe("connections.applyNotification", () => {
  it("revokes the connection when the consent reads REVOKED: tokens erased, no IdP call, onStatusChange once", async () => {
    const { connections, connection, grantId, changes } = await setUp();
    expect(connection.consentId).toBe(grantId);
    const { client, reads } = consentsAnswering("REVOKED");
    const before = { ...idp.stats };
    const result = await connections.applyNotification(notice("CONSENT_REVOKED", grantId), { client });
    expect(result.action).toBe("revoked");
    expect(result.connection).toMatchObject({ id: "user-1", status: "revoked", idToken: "", refreshToken: "", accessToken: "" });
    expect(await connections.get("user-1")).toMatchObject({ status: "revoked", refreshToken: "" });
    expect(reads).toEqual([grantId]);
    expect(idp.stats).toEqual(before);
    expect(changes).toEqual([["revoked", "active"]]);
    // A redelivery changes nothing more, and the hook does not fire again.
    expect((await connections.applyNotification(notice("CONSENT_REVOKED", grantId), { client })).action).toBe("none");
    expect(changes).toHaveLength(1);
  });

  it("marks the connection reauthorization_required when the consent reads EXPIRED", async () => {
    const { connections, grantId, changes } = await setUp();
    const { client } = consentsAnswering("EXPIRED");
    const result = await connections.applyNotification(notice("CONSENT_UPDATED", grantId), { client });
    expect(result).toMatchObject({ action: "reauthorization_required", connection: { status: "reauthorization_required", idToken: "" } });
    expect(changes).toEqual([["reauthorization_required", "active"]]);
    await expect(connections.token("user-1")()).rejects.toMatchObject({ name: "FdxReauthorizationRequiredError" });
  });

  it("ignores a CONSENT_REVOKED whose consent still reads ACTIVE (forged or stale)", async () => {
    const { connections, grantId, changes } = await setUp();
    const { client, reads } = consentsAnswering("ACTIVE");
    const result = await connections.applyNotification(notice("CONSENT_REVOKED", grantId), { client });
    expect(result.action).toBe("none");
    expect(result.connection?.status).toBe("active");
    expect(reads).toHaveLength(1);
    expect(changes).toEqual([]);
    expect((await connections.get("user-1"))?.status).toBe("active");
  });

  it("refreshes on CONSENT_UPDATED with an ACTIVE consent, so the accounts follow the grant — at most once per 30 s", async () => {
    const { connections, grantId } = await setUp(["acct-1"]);
    const { client } = consentsAnswering("ACTIVE");
    const refreshes = idp.stats.refreshes;
    idp.extraClaims = { accounts: ["acct-1", "acct-2"] };
    try {
      const result = await connections.applyNotification(notice("CONSENT_UPDATED", grantId), { client });
      expect(result.action).toBe("refreshed");
      expect(result.connection?.accounts).toEqual(["acct-1", "acct-2"]);
      expect(idp.stats.refreshes).toBe(refreshes + 1);
      // Forged posts cannot drive refreshes: the next ones within 30 s change nothing.
      for (let i = 0; i < 3; i++) expect((await connections.applyNotification(notice("CONSENT_UPDATED", grantId), { client })).action).toBe("none");
      expect(idp.stats.refreshes).toBe(refreshes + 1);
    } finally {
      idp.extraClaims = {};
    }
  });

  it("does nothing, with no API call, for a consent no connection holds or a notification that is not about a consent", async () => {
    const { connections } = await setUp();
    const { client, reads } = consentsAnswering("REVOKED");
    expect(await connections.applyNotification(notice("CONSENT_REVOKED", "consent-of-nobody"), { client })).toEqual({ action: "none" });
    const maintenance = { category: "MAINTENANCE", type: "PLANNED_OUTAGE", notificationPayload: { id: "m-1", idType: "MAINTENANCE" } };
    expect(await connections.applyNotification(maintenance, { client })).toEqual({ action: "none" });
    expect(reads).toEqual([]);
  });

  it("throws when the consent cannot be read, so the delivery is retried, and changes nothing", async () => {
    const { connections, grantId, changes } = await setUp();
    const failure = new Error("503 Scheduled maintenance");
    const { client } = consentsAnswering(() => Promise.reject(failure));
    await expect(connections.applyNotification(notice("CONSENT_REVOKED", grantId), { client })).rejects.toBe(failure);
    expect((await connections.get("user-1"))?.status).toBe("active");
    expect(changes).toEqual([]);
  });

  it("leaves a connection that was replaced by a new authorization (another consent) alone", async () => {
    const { connections, grantId } = await setUp();
    const request = await auth.authorizationUrl({ connector: "mikomo" });
    await connections.complete("user-1", idp.callback(request.url, { grantId: "consent-new" }), request);
    const { client } = consentsAnswering("REVOKED");
    expect((await connections.applyNotification(notice("CONSENT_REVOKED", grantId), { client })).action).toBe("none");
    expect(await connections.get("user-1")).toMatchObject({ status: "active", consentId: "consent-new" });
  });

  it("handles one delivery once when two instances apply it at the same time", async () => {
    const { store, grantId, changes } = await setUp();
    const hooks: Array<[ConnectionStatus, ConnectionStatus | undefined]> = [];
    const instances = [0, 1].map(() => createConnections({ auth, store, onStatusChange: (c: Connection, p) => void hooks.push([c.status, p]) }));
    const { client } = consentsAnswering("REVOKED");
    const results = await Promise.all(instances.map((c) => c.applyNotification(notice("CONSENT_REVOKED", grantId), { client })));
    expect(results.map((r) => r.action).sort()).toEqual(["none", "revoked"]);
    expect(hooks).toEqual([["revoked", "active"]]);
    expect(changes).toEqual([]);
  });

  it("refuses what is not a notification or a client, before any call", async () => {
    const { connections } = await setUp();
    const { client, reads } = consentsAnswering("REVOKED");
    await expect(connections.applyNotification("CONSENT_REVOKED", { client })).rejects.toThrow(FdxValidationError);
    await expect(connections.applyNotification(notice("CONSENT_REVOKED", "c"), { client: {} as ConsentReader })).rejects.toThrow(/service token/);
    expect(reads).toEqual([]);
  });
});
