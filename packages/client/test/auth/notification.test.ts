// connections.applyNotification: a consent webhook is a hint, the consent read through the API decides.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createAuthClient,
  createConnections,
  memoryConnectionStore,
  type AuthClient,
  type Connection,
  type ConnectionStatus,
  type ConnectionStore,
  type ConsentReader,
} from "../../src/auth/index.js";
import { FdxReauthorizationRequiredError } from "../../src/auth/errors.js";
import { applyNotification, type NotificationTarget } from "../../src/auth/notification.js";
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

describe("connections.applyNotification: which notifications it acts on", () => {
  const expectInvalid = async (result: Promise<unknown>, path: string, message: string) => {
    const error = await result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues).toEqual([{ path, message }]);
    expect((error as FdxValidationError).message).toBe(`Invalid input: ${path}: ${message}`);
  };

  it("refuses a notification that is not an object, naming it and where it comes from", async () => {
    const { connections } = await setUp();
    const { client, reads } = consentsAnswering("REVOKED");
    const message = "must be a notification object (from parseNotification or the webhook handler)";
    for (const bad of ["CONSENT_REVOKED", null, undefined, 42, ["CONSENT"]]) {
      await expectInvalid(connections.applyNotification(bad, { client }), "notification", message);
    }
    expect(reads).toEqual([]);
  });

  it("refuses missing options or a client without consents.get, with the exact issue", async () => {
    const { connections, grantId } = await setUp();
    const message = "must be a client with the service token (createClient)";
    for (const options of [undefined, {}, { client: undefined }, { client: {} }, { client: { consents: {} } }, { client: { consents: { get: "x" } } }]) {
      await expectInvalid(connections.applyNotification(notice("CONSENT_REVOKED", grantId), options as never), "client", message);
    }
    expect((await connections.get("user-1"))?.status).toBe("active");
  });

  it("ignores a notification of another category, or with no payload, even when its id is a held consent's", async () => {
    const { connections, grantId, changes } = await setUp();
    const { client, reads } = consentsAnswering("REVOKED");
    const others = [
      { ...notice("CONSENT_REVOKED", grantId), category: "SECURITY" },
      { ...notice("CONSENT_REVOKED", grantId), category: undefined },
      { ...notice("CONSENT_REVOKED", grantId), notificationPayload: undefined },
      { ...notice("CONSENT_REVOKED", grantId), notificationPayload: null },
      { ...notice("CONSENT_REVOKED", grantId), notificationPayload: grantId },
    ];
    for (const notification of others) expect(await connections.applyNotification(notification, { client })).toEqual({ action: "none" });
    expect(reads).toEqual([]);
    expect(changes).toEqual([]);
    expect((await connections.get("user-1"))?.status).toBe("active");
  });

  it("ignores a payload whose id is of another type, or not a non-empty string", async () => {
    const { connections, grantId } = await setUp();
    const { client, reads } = consentsAnswering("REVOKED");
    const payloads = [
      { id: grantId, idType: "ACCOUNT" },
      { id: grantId, idType: "" },
      { id: "", idType: "CONSENT" },
      { id: 42, idType: "CONSENT" },
      { idType: "CONSENT" },
    ];
    for (const notificationPayload of payloads) {
      expect(await connections.applyNotification({ ...notice("CONSENT_REVOKED", grantId), notificationPayload }, { client })).toEqual({ action: "none" });
    }
    expect(reads).toEqual([]);
    expect((await connections.get("user-1"))?.status).toBe("active");
  });

  it("acts on a payload without idType: the id is the consent's", async () => {
    const { connections, grantId } = await setUp();
    const { client, reads } = consentsAnswering("REVOKED");
    const result = await connections.applyNotification({ ...notice("CONSENT_REVOKED", grantId), notificationPayload: { id: grantId } }, { client });
    expect(result).toMatchObject({ action: "revoked", connection: { id: "user-1", status: "revoked" } });
    expect(reads).toEqual([grantId]);
  });

  it("changes nothing when the consent reads without a status, or with one it does not know", async () => {
    const { connections, grantId, changes } = await setUp();
    const refreshes = idp.stats.refreshes;
    for (const answer of [undefined, null, {}, { status: "SUSPENDED" }]) {
      const { client } = consentsAnswering(async () => answer as never);
      const result = await connections.applyNotification(notice("CONSENT_UPDATED", grantId), { client });
      expect(result).toMatchObject({ action: "none", connection: { id: "user-1", status: "active" } });
    }
    expect(idp.stats.refreshes).toBe(refreshes);
    expect(changes).toEqual([]);
  });
});

describe("connections.applyNotification: ending and refreshing", () => {
  it("marks the connection reauthorization_required when the refresh a CONSENT_UPDATED asks for is refused by the IdP", async () => {
    const { connections, connection, grantId, changes } = await setUp();
    idp.revokeSubject(connection.subject);
    const { client } = consentsAnswering("ACTIVE");
    const rejected = idp.stats.refreshesRejected;
    const result = await connections.applyNotification(notice("CONSENT_UPDATED", grantId), { client });
    expect(result).toMatchObject({ action: "reauthorization_required", connection: { id: "user-1", status: "reauthorization_required", refreshToken: "" } });
    expect(idp.stats.refreshesRejected).toBe(rejected + 1);
    expect(changes).toEqual([["reauthorization_required", "active"]]);
  });

  it("does not refresh a connection that is not active, whatever the consent says", async () => {
    const { connections, grantId, changes } = await setUp();
    await connections.applyNotification(notice("CONSENT_UPDATED", grantId), consentsAnswering("EXPIRED"));
    const refreshes = idp.stats.refreshes;
    const result = await connections.applyNotification(notice("CONSENT_UPDATED", grantId), consentsAnswering("ACTIVE"));
    expect(result).toMatchObject({ action: "none", connection: { status: "reauthorization_required" } });
    expect(idp.stats.refreshes).toBe(refreshes);
    expect(changes).toEqual([["reauthorization_required", "active"]]);
  });

  it("ends a connection once: a second EXPIRED, or an EXPIRED after REVOKED, changes nothing and fires no hook", async () => {
    const expired = await setUp();
    await expired.connections.applyNotification(notice("CONSENT_UPDATED", expired.grantId), consentsAnswering("EXPIRED"));
    const again = await expired.connections.applyNotification(notice("CONSENT_UPDATED", expired.grantId), consentsAnswering("EXPIRED"));
    expect(again).toMatchObject({ action: "none", connection: { status: "reauthorization_required" } });
    expect(expired.changes).toEqual([["reauthorization_required", "active"]]);

    const revoked = await setUp();
    await revoked.connections.applyNotification(notice("CONSENT_REVOKED", revoked.grantId), consentsAnswering("REVOKED"));
    const later = await revoked.connections.applyNotification(notice("CONSENT_UPDATED", revoked.grantId), consentsAnswering("EXPIRED"));
    expect(later).toMatchObject({ action: "none", connection: { status: "revoked" } });
    expect((await revoked.connections.get("user-1"))?.status).toBe("revoked");
    expect(revoked.changes).toEqual([["revoked", "active"]]);
  });

  it("leaves a connection re-authorized (another consent) while the consent was being read", async () => {
    const { connections, grantId, changes } = await setUp();
    const { client } = consentsAnswering(async () => {
      const request = await auth.authorizationUrl({ connector: "mikomo" });
      await connections.complete("user-1", idp.callback(request.url, { grantId: "consent-renewed" }), request);
      return { status: "REVOKED" };
    });
    expect(await connections.applyNotification(notice("CONSENT_REVOKED", grantId), { client })).toEqual({ action: "none", connection: undefined });
    expect(await connections.get("user-1")).toMatchObject({ status: "active", consentId: "consent-renewed" });
    expect(changes.map(([status]) => status)).not.toContain("revoked");
  });
});

describe("connections.applyNotification: a write that overtakes the ending", () => {
  it("reads the row again and still ends it when another write (not an ending) got in first", async () => {
    const inner = memoryConnectionStore();
    let overtaken = false;
    const store: ConnectionStore = {
      ...inner,
      async compareAndSet(id, expected, next) {
        if (next.status === "revoked" && !overtaken) {
          overtaken = true;
          // Another process writes the row (a lease it took) just before this write lands.
          const row = (await inner.get(id))!;
          await inner.compareAndSet(id, row.version, { ...row, version: row.version + 1, updatedAt: row.updatedAt + 1 });
        }
        return inner.compareAndSet(id, expected, next);
      },
    };
    const connections = createConnections({ auth, store });
    const request = await auth.authorizationUrl({ connector: "mikomo" });
    await connections.complete("user-1", idp.callback(request.url, { grantId: "consent-overtaken" }), request);
    const result = await connections.applyNotification(notice("CONSENT_REVOKED", "consent-overtaken"), consentsAnswering("REVOKED"));
    expect(overtaken).toBe(true);
    expect(result).toMatchObject({ action: "revoked", connection: { status: "revoked", refreshToken: "" } });
    expect(await inner.get("user-1")).toMatchObject({ status: "revoked", refreshToken: "", idToken: "" });
  });
});

describe("connections.applyNotification: a refresh another process is making", () => {
  it("waits for it and answers with its accounts, rather than the row as it was", async () => {
    const { store, connection, grantId } = await setUp(["acct-1"]);
    const other = createConnections({ auth, store });
    const notified = createConnections({ auth, store });
    idp.extraClaims = { accounts: ["acct-1", "acct-2"] };
    const gate = idp.hold();
    try {
      const refreshing = other.token("user-1")({ rejected: connection.idToken, signal: undefined });
      while (gate.waiting() < 1) await new Promise((r) => setTimeout(r, 5));
      const applying = notified.applyNotification(notice("CONSENT_UPDATED", grantId), consentsAnswering("ACTIVE"));
      // Long enough for the notice to reach the other process's lease and wait on it.
      await new Promise((r) => setTimeout(r, 100));
      gate.release();
      const [fresh, result] = await Promise.all([refreshing, applying]);
      expect(result).toMatchObject({ action: "refreshed", connection: { idToken: fresh, accounts: ["acct-1", "acct-2"] } });
    } finally {
      gate.release();
      idp.extraClaims = {};
    }
  });
});

describe("applyNotification: a refresh that fails while the consent reads ACTIVE", () => {
  /** A connection manager whose refresh fails with `failure`, and whose row then reads as `after`. */
  function failingTarget(failure: unknown, after: Partial<Connection> | undefined) {
    const row = { id: "user-1", status: "active", consentId: "consent-1" } as Connection;
    let finds = 0;
    const target: NotificationTarget = {
      findByConsentId: async () => (finds++ === 0 ? row : after && { ...row, ...after }),
      end: async () => undefined,
      refreshThrottled: () => Promise.reject(failure),
    };
    return target;
  }
  const updated = { category: "CONSENT", type: "CONSENT_UPDATED", notificationPayload: { id: "consent-1", idType: "CONSENT" } };

  it("rethrows a refusal by the IdP when the connection is gone meanwhile (deleted), so the delivery comes again", async () => {
    const refusal = new FdxReauthorizationRequiredError("user-1", "not_found");
    const target = failingTarget(refusal, undefined);
    await expect(applyNotification(target, updated, consentsAnswering("ACTIVE"))).rejects.toBe(refusal);
  });

  it("rethrows a refusal by the IdP when the connection reads active again (the user connected anew)", async () => {
    const refusal = new FdxReauthorizationRequiredError("user-1", "invalid_grant");
    await expect(applyNotification(failingTarget(refusal, { status: "active" }), updated, consentsAnswering("ACTIVE"))).rejects.toBe(refusal);
  });

  it("rethrows any other failure of the refresh, even when the connection now reads reauthorization_required", async () => {
    const outage = new Error("503 from the IdP");
    await expect(applyNotification(failingTarget(outage, { status: "reauthorization_required" }), updated, consentsAnswering("ACTIVE"))).rejects.toBe(outage);
  });
});

describe("connections.applyNotification: the refresh throttle at its limits", () => {
  afterEach(() => vi.useRealTimers());

  async function connectAll(users: string[], cacheSize?: number) {
    const connections = createConnections({ auth, store: memoryConnectionStore(), ...(cacheSize ? { cacheSize } : {}) });
    const grants: Record<string, string> = {};
    for (const user of users) {
      const request = await auth.authorizationUrl({ connector: "mikomo" });
      grants[user] = `consent-${user}-${Math.random().toString(36).slice(2)}`;
      await connections.complete(user, idp.callback(request.url, { grantId: grants[user] }), request);
    }
    const { client } = consentsAnswering("ACTIVE");
    const update = async (user: string) => (await connections.applyNotification(notice("CONSENT_UPDATED", grants[user]!), { client })).action;
    return { update };
  }

  it("refreshes again after exactly 30 s, not a millisecond sooner", async () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const { update } = await connectAll(["user-1"]);
    const refreshes = idp.stats.refreshes;
    expect(await update("user-1")).toBe("refreshed");
    vi.advanceTimersByTime(29_999);
    expect(await update("user-1")).toBe("none");
    vi.advanceTimersByTime(1);
    expect(await update("user-1")).toBe("refreshed");
    expect(idp.stats.refreshes).toBe(refreshes + 2);
  });

  it("remembers the last cacheSize connections it refreshed: the oldest beyond that is refreshed again at once", async () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const { update } = await connectAll(["a", "b", "c"], 2);
    expect([await update("a"), await update("b")]).toEqual(["refreshed", "refreshed"]);
    // Two remembered, none forgotten yet.
    expect([await update("a"), await update("b")]).toEqual(["none", "none"]);
    // A third pushes out the oldest (a), which a notice then refreshes; b is still held back.
    expect(await update("c")).toBe("refreshed");
    expect([await update("b"), await update("a")]).toEqual(["none", "refreshed"]);
  });
});
