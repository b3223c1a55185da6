import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createAuthClient,
  createConnections,
  encryptConnectionStore,
  type FdxAuthError,
  FdxConnectionStoreError,
  FdxReauthorizationRequiredError,
  memoryConnectionStore,
  type AuthClient,
  type Connection,
  type ConnectionStore,
  type ConnectionsOptions,
} from "../../src/auth/index.js";
import { createClient, FdxAbortError, FdxApiError, FdxConnectionError, FdxTimeoutError, FdxValidationError } from "../../src/index.js";
import { rejectionOf } from "../support/http.js";
import { CLIENT_ID, CLIENT_SECRET, ISSUER, REDIRECT_URI, expectClean, renderings, startIdp, type TestIdp } from "../support/idp.js";

let idp: TestIdp;
let auth: AuthClient;
beforeAll(async () => {
  idp = await startIdp();
  auth = createAuthClient({ issuer: idp.url, expectedIssuer: ISSUER, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI });
});
afterAll(() => idp.close());
/** Tokens of an hour's lifetime with 200 s left: inside the default refresh window, which their lifetime does not cap. */
const nearExpiry = () => {
  idp.idTokenTtlS = 200;
  idp.extraClaims = { iat: Math.floor(Date.now() / 1000) - 3400 };
};
afterEach(() => {
  idp.override = undefined;
  idp.extraClaims = {};
  idp.extraAnswer = {};
  idp.accessTokenTtlS = undefined;
  idp.idTokenTtlS = 3600;
});

/** A store that counts reads and lets a test step into writes. */
function spyStore(inner: ConnectionStore = memoryConnectionStore()) {
  const counts = { get: 0, cas: 0 };
  const spy = {
    inner,
    counts,
    /** Runs before each compareAndSet; may throw or wait. */
    beforeWrite: undefined as undefined | ((id: string, expected: number, next: Connection) => void | Promise<void>),
    store: {
      get: (id: string) => {
        counts.get++;
        return inner.get(id);
      },
      compareAndSet: async (id: string, expected: number, next: Connection) => {
        counts.cas++;
        await spy.beforeWrite?.(id, expected, next);
        return inner.compareAndSet(id, expected, next);
      },
      delete: (id: string) => inner.delete(id),
      list: () => inner.list(),
      findByConsentId: (c: string) => inner.findByConsentId!(c),
    } satisfies ConnectionStore,
  };
  return spy;
}

const stats = () => ({ ...idp.stats });
const make = (store: ConnectionStore, extra: Partial<ConnectionsOptions> = {}) => createConnections({ auth, store, refreshBeforeMs: 0, ...extra });

async function connect(connections: ReturnType<typeof createConnections>, id = "user-42", grant?: Parameters<TestIdp["callback"]>[1]) {
  const req = await auth.authorizationUrl({ connector: "mikomo" });
  return connections.complete(id, idp.callback(req.url, grant), req);
}

/** Writes `patch` onto the stored row as another process would. */
async function writeAsOther(store: ConnectionStore, id: string, patch: Partial<Connection>) {
  const row = (await store.get(id))!;
  expect(await store.compareAndSet(id, row.version, { ...row, ...patch, version: row.version + 1, updatedAt: Date.now() })).toBe(true);
}

const until = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
};

describe("createConnections options", () => {
  it("refuses bad options", () => {
    const store = memoryConnectionStore();
    expect(() => createConnections({ auth, store, leaseMs: 5 })).toThrow(/leaseMs/);
    expect(() => createConnections({ auth, store, refreshBeforeMs: -1 })).toThrow(/refreshBeforeMs/);
    expect(() => createConnections({ auth, store, cacheTtlMs: 1.5 })).toThrow(/cacheTtlMs/);
    expect(() => createConnections({ auth, store, cacheSize: 0 })).toThrow(/cacheSize/);
    expect(() => createConnections({ auth, store, onStatusChange: 1 as never })).toThrow(/onStatusChange/);
    expect(() => createConnections({ auth: {} as never, store: {} as never })).toThrow(/auth.*store/s);
    expect(() => createConnections(undefined as never)).toThrow(FdxValidationError);
    expect(() => createConnections({ auth, store, leaseMs: 10, cacheSize: 1, cacheTtlMs: 0, refreshBeforeMs: 0 })).not.toThrow();
    const connections = make(store);
    expect(() => connections.token("")).toThrow(FdxValidationError);
  });
});

describe("complete, get, list, findByConsentId", () => {
  it("stores the connection of an authorization and tells onStatusChange", async () => {
    const spy = spyStore();
    const changes: [string, string | undefined][] = [];
    const connections = make(spy.store, { onStatusChange: (c, previous) => void changes.push([c.status, previous]) });
    const connection = await connect(connections, "user-42", { accounts: ["a1"], grantId: "consent-1" });
    expect(connection).toMatchObject({
      id: "user-42",
      status: "active",
      accounts: ["a1"],
      subject: "user-sub-1",
      connector: "mikomo",
      consentId: "consent-1",
      issuer: ISSUER,
      clientId: CLIENT_ID,
      version: 1,
      lease: undefined,
    });
    expect(connection.createdAt).toBe(connection.updatedAt);
    expect(await connections.get("user-42")).toEqual(connection);
    expect(changes).toEqual([["active", undefined]]);
    expect((await connections.findByConsentId("consent-1"))?.id).toBe("user-42");
    expect(await connections.findByConsentId("consent-none")).toBeUndefined();
    expect(await connections.get("nobody")).toBeUndefined();
  });

  it("names the connection from its tokens when the id is a function", async () => {
    const connections = make(memoryConnectionStore());
    const req = await auth.authorizationUrl({ connector: "mikomo" });
    const seen: string[] = [];
    const connection = await connections.complete((t) => (seen.push(t.subject), `${t.connector}:${t.subject}`), idp.callback(req.url), req);
    expect(connection).toMatchObject({ id: "mikomo:user-sub-1", status: "active", version: 1 });
    expect(seen).toEqual(["user-sub-1"]);
    expect((await connections.get("mikomo:user-sub-1"))?.refreshToken).toBe(connection.refreshToken);
  });

  it("an id function that throws, or names a bad id, stores nothing and revokes the new refresh token", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    for (const name of [
      () => "",
      () => {
        throw new Error("no name");
      },
    ]) {
      const req = await auth.authorizationUrl({ connector: "mikomo" });
      const before = stats();
      await expect(connections.complete(name, idp.callback(req.url), req)).rejects.toThrow();
      expect(stats().codesExchanged).toBe(before.codesExchanged + 1);
      expect(stats().revocations).toBe(before.revocations + 1);
    }
    const rows: Connection[] = [];
    for await (const row of store.list()) rows.push(row);
    expect(rows).toEqual([]);
  });

  it("a bad callback stores nothing and sends nothing", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    const req = await auth.authorizationUrl({ connector: "mikomo" });
    const before = stats();
    const error = await rejectionOf(connections.complete("u", idp.callback(req.url), { ...req, state: "forged" }));
    expect(error).toMatchObject({ error: "invalid_state" });
    expect(await store.get("u")).toBeUndefined();
    expect(stats().codesExchanged).toBe(before.codesExchanged);
  });

  it("an id token for another client stores nothing", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    idp.extraClaims = { aud: "another-client" };
    expect(await rejectionOf(connect(connections))).toMatchObject({ error: "invalid_id_token" });
    expect(await store.get("user-42")).toBeUndefined();
  });

  it("a new authorization replaces an older one with the same id, and revokes the old refresh token", async () => {
    const connections = make(memoryConnectionStore());
    const first = await connect(connections);
    await new Promise((r) => setTimeout(r, 2));
    const second = await connect(connections);
    expect(second.version).toBe(2);
    expect(second.createdAt).toBeGreaterThan(first.createdAt);
    expect(idp.revoked).toContain(first.refreshToken);
    expect((await connections.get("user-42"))!.refreshToken).toBe(second.refreshToken);
  });

  it("writes onto the current version when a write overtook it", async () => {
    const spy = spyStore();
    const connections = make(spy.store);
    await connect(connections);
    let once = false;
    spy.beforeWrite = async (id) => {
      if (once) return;
      once = true;
      await writeAsOther(spy.inner, id, { accounts: ["changed"] });
    };
    const replaced = await connect(connections);
    expect(replaced.version).toBe(3);
    expect((await spy.inner.get("user-42"))!.refreshToken).toBe(replaced.refreshToken);
  });

  it("a row of another issuer written while the code was exchanged: the new refresh token is revoked, nothing written", async () => {
    const spy = spyStore();
    const connections = make(spy.store);
    spy.beforeWrite = async (id) => {
      spy.beforeWrite = undefined;
      await spy.inner.compareAndSet(id, 0, { ...(await connect(make(memoryConnectionStore()), id)), issuer: "/production" });
    };
    const revokedBefore = idp.revoked.length;
    expect(await rejectionOf(connect(connections))).toMatchObject({ reason: "foreign_connection" });
    expect(idp.revoked.slice(revokedBefore)).toHaveLength(1);
    expect((await spy.inner.get("user-42"))!.issuer).toBe("/production");
  });

  it("works on an encrypted store", async () => {
    const inner = memoryConnectionStore();
    const store = encryptConnectionStore(inner, { keys: { k1: Buffer.alloc(32, 3).toString("base64") }, current: "k1" });
    const connections = make(store);
    const connection = await connect(connections);
    expect((await inner.get("user-42"))!.refreshToken).toMatch(/^fdxenc\.v2\.k1\./);
    const fresh = await make(store).token("user-42")({ rejected: connection.idToken, signal: undefined });
    expect((await store.get("user-42"))!.idToken).toBe(fresh);
    await connections.revoke("user-42");
    expect(await store.get("user-42")).toMatchObject({ status: "revoked", idToken: "", refreshToken: "" });
  });

  it("retries a failing store write, then revokes the new refresh token and throws a clean store error", async () => {
    const spy = spyStore();
    const connections = make(spy.store, { leaseMs: 1_000 });
    spy.beforeWrite = () => {
      throw Object.assign(new Error(`duplicate key: (refresh_token)=(${"x".repeat(3)})`), { code: "23505", detail: "Key (id)=(user-42) exists" });
    };
    const before = stats();
    const error = (await rejectionOf(connect(connections))) as FdxConnectionStoreError;
    expect(error).toBeInstanceOf(FdxConnectionStoreError);
    expect(error).toMatchObject({ reason: "store_error", connectionId: "user-42", cause: { name: "Error", code: "23505" } });
    expect(await renderings(error)).not.toMatch(/duplicate|Key \(id\)/);
    expect(spy.counts.cas).toBeGreaterThan(1);
    expect(stats().revocations).toBe(before.revocations + 1);
    expect(await spy.inner.get("user-42")).toBeUndefined();
  });

  it("refuses to replace a row of another issuer or client, before the code is spent", async () => {
    for (const patch of [{ issuer: "/production" }, { clientId: "another-client" }]) {
      const store = memoryConnectionStore();
      const connections = make(store);
      await connect(connections);
      await writeAsOther(store, "user-42", patch);
      const before = stats();
      const req = await auth.authorizationUrl({ connector: "mikomo" });
      const error = await rejectionOf(connections.complete("user-42", idp.callback(req.url), req));
      expect(error).toBeInstanceOf(FdxConnectionStoreError);
      expect(error).toMatchObject({ reason: "foreign_connection", connectionId: "user-42" });
      expect(stats().codesExchanged).toBe(before.codesExchanged);
      expect(await rejectionOf(connections.get("user-42"))).toBeInstanceOf(FdxConnectionStoreError);
      const before2 = stats();
      // Another process, with no copy in memory.
      const other = make(store);
      expect(await rejectionOf(other.token("user-42")())).toMatchObject({ reason: "foreign_connection" });
      expect(await rejectionOf(other.refresh("user-42"))).toMatchObject({ reason: "foreign_connection" });
      expect(await rejectionOf(other.revoke("user-42"))).toMatchObject({ reason: "foreign_connection" });
      expect(stats()).toEqual(before2);
    }
  });

  it("a row written through encryptConnectionStore and read without it is refused: no ciphertext reaches the IdP, the connection survives", async () => {
    const inner = memoryConnectionStore();
    const sealed = encryptConnectionStore(inner, { keys: { k1: btoa(String.fromCharCode(...new Uint8Array(32).fill(9))) }, current: "k1" });
    await connect(make(sealed));
    const plain = make(inner);
    const before = stats();
    for (const call of [() => plain.token("user-42")({ rejected: "x", signal: undefined }), () => plain.refresh("user-42"), () => plain.get("user-42")]) {
      const error = await rejectionOf(call());
      expect(error).toBeInstanceOf(FdxConnectionStoreError);
      expect(error).toMatchObject({ reason: "undecryptable", connectionId: "user-42" });
      expect(String(error)).not.toContain("fdxenc.v1");
    }
    expect(stats()).toEqual(before);
    expect((await make(sealed).get("user-42"))?.status).toBe("active");
  });

  it("lists only this issuer's and client's rows; findByConsentId scans list() when the store has no index", async () => {
    const inner = memoryConnectionStore();
    const { findByConsentId: _none, ...plain } = inner;
    const connections = make(plain as ConnectionStore);
    await connect(connections, "a", { grantId: "ca" });
    await connect(connections, "b", { grantId: "cb" });
    await connect(connections, "c", { grantId: "cc" });
    await writeAsOther(inner, "c", { issuer: "/production" });
    const ids: string[] = [];
    for await (const row of connections.list()) ids.push(row.id);
    expect(ids.sort()).toEqual(["a", "b"]);
    expect((await connections.findByConsentId("cb"))?.id).toBe("b");
    expect(await connections.findByConsentId("cc")).toBeUndefined();
    const indexed = make(inner);
    expect(await indexed.findByConsentId("cc")).toBeUndefined();
    expect((await indexed.findByConsentId("ca"))?.id).toBe("a");
    expect(await rejectionOf(indexed.findByConsentId(""))).toBeInstanceOf(FdxValidationError);
  });

  it("wraps store errors without the row's values", async () => {
    const secretRow = "refresh-token-in-a-detail";
    const broken: ConnectionStore = {
      get: async () => {
        throw Object.assign(new TypeError(`boom ${secretRow}`), { detail: secretRow, code: 42 });
      },
      compareAndSet: async () => false,
      delete: async () => undefined,
      list: () => ({
        [Symbol.asyncIterator]: () => ({
          next: async () => {
            throw `plain ${secretRow}`;
          },
        }),
      }),
    };
    const connections = make(broken);
    for (const error of [
      await rejectionOf(connections.get("u")),
      await rejectionOf(connections.token("u")()),
      await rejectionOf(connections.findByConsentId("c")),
    ]) {
      expect(error).toBeInstanceOf(FdxConnectionStoreError);
      expectClean(await renderings(error), [secretRow]);
    }
    expect(((await rejectionOf(connections.get("u"))) as Error).message).toContain("TypeError");
  });
});

describe("token(id): the hot path", () => {
  it("is a token function createClient takes, and answers a call made with no context", async () => {
    const connections = make(memoryConnectionStore());
    const connection = await connect(connections);
    const client = createClient({ baseUrl: "https://api.example.com", token: connections.token("user-42") });
    expect(typeof client.consents.get).toBe("function");
    expect(await connections.token("user-42")()).toBe(connection.idToken);
  });

  it("reads the store once per cacheTtlMs, not per call", async () => {
    const spy = spyStore();
    const connections = make(spy.store, { cacheTtlMs: 60_000 });
    const connection = await connect(connections);
    const token = connections.token("user-42");
    const reads = spy.counts.get;
    for (let i = 0; i < 5; i++) expect(await token({ rejected: undefined, signal: undefined })).toBe(connection.idToken);
    expect(spy.counts.get).toBe(reads);
    const uncached = make(spy.store, { cacheTtlMs: 0 });
    await uncached.token("user-42")();
    await uncached.token("user-42")();
    expect(spy.counts.get).toBe(reads + 2);
  });

  it("keeps at most cacheSize connections, least recently used out", async () => {
    const spy = spyStore();
    const connections = make(spy.store, { cacheSize: 2 });
    for (const id of ["a", "b", "c"]) await connect(connections, id);
    // complete() cached b and c; a was pushed out.
    const reads = spy.counts.get;
    await connections.token("b")();
    await connections.token("c")();
    expect(spy.counts.get).toBe(reads);
    await connections.token("a")();
    expect(spy.counts.get).toBe(reads + 1);
    await connections.token("c")();
    expect(spy.counts.get).toBe(reads + 1);
    await connections.token("b")();
    expect(spy.counts.get).toBe(reads + 2);
  });

  it("refreshes before expiry (refreshBeforeMs) and stores the new pair with the lease cleared", async () => {
    const spy = spyStore();
    const connections = make(spy.store, { refreshBeforeMs: 300_000 });
    idp.idTokenTtlS = 3600;
    const connection = await connect(connections);
    expect(await connections.token("user-42")()).toBe(connection.idToken);
    nearExpiry();
    const near = await connect(connections, "near");
    idp.idTokenTtlS = 3600;
    const before = stats();
    const fresh = await connections.token("near")();
    expect(fresh).not.toBe(near.idToken);
    expect(stats().refreshes).toBe(before.refreshes + 1);
    const stored = (await spy.inner.get("near"))!;
    expect(stored).toMatchObject({ idToken: fresh, version: near.version + 2, lease: undefined, status: "active", createdAt: near.createdAt });
    expect(stored.refreshToken).not.toBe(near.refreshToken);
  });

  it("hands out a token another process stored, instead of refreshing", async () => {
    const spy = spyStore();
    const a = make(spy.store);
    const b = make(spy.store);
    const connection = await connect(a);
    expect(await b.token("user-42")()).toBe(connection.idToken);
    const refreshed = await a.refresh("user-42");
    const before = stats();
    expect(await b.token("user-42")({ rejected: connection.idToken, signal: undefined })).toBe(refreshed.idToken);
    expect(stats().refreshes).toBe(before.refreshes);
  });

  it("an expired token is refreshed; an unexpired, unrejected one is returned at once even while another process holds the lease", async () => {
    const spy = spyStore();
    const connections = make(spy.store, { refreshBeforeMs: 300_000 });
    nearExpiry();
    const connection = await connect(connections);
    await writeAsOther(spy.inner, "user-42", { lease: { owner: "other-host", until: Date.now() + 30_000 } });
    const before = stats();
    expect(await connections.token("user-42")()).toBe(connection.idToken);
    expect(stats().refreshes).toBe(before.refreshes);
  });

  it("the signal ends a wait", async () => {
    const spy = spyStore();
    const connections = make(spy.store);
    const connection = await connect(connections);
    await writeAsOther(spy.inner, "user-42", { lease: { owner: "other-host", until: Date.now() + 30_000 } });
    const controller = new AbortController();
    const waiting = connections.token("user-42")({ rejected: connection.idToken, signal: controller.signal });
    const reads = spy.counts.get;
    await until(() => spy.counts.get > reads + 1);
    controller.abort(new Error("user gave up"));
    expect(await rejectionOf(waiting)).toBeInstanceOf(FdxAbortError);
    expect(await rejectionOf(connections.token("user-42")({ rejected: undefined, signal: controller.signal }))).toBeInstanceOf(FdxAbortError);
    // The other host finishes; its tokens are used.
    await writeAsOther(spy.inner, "user-42", { lease: undefined, idToken: "from-the-other-host" });
    expect(await connections.refresh("user-42").then((c) => c.idToken)).not.toBe(connection.idToken);
  });

  it("a missing, revoked or reauthorization-required connection throws FdxReauthorizationRequiredError", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    expect(await rejectionOf(connections.token("nobody")())).toMatchObject({ connectionId: "nobody", reason: "not_found" });
    await connect(connections);
    await writeAsOther(store, "user-42", { status: "reauthorization_required", idToken: "", refreshToken: "" });
    const error = await rejectionOf(make(store).token("user-42")());
    expect(error).toBeInstanceOf(FdxReauthorizationRequiredError);
    expect(error).toMatchObject({ reason: "reauthorization_required" });
    await writeAsOther(store, "user-42", { status: "revoked" });
    expect(await rejectionOf(make(store).refresh("user-42"))).toMatchObject({ reason: "revoked" });
  });
});

describe("races and leaks", () => {
  it("100 concurrent callers holding one rejected token cause 1 refresh", async () => {
    const connections = make(memoryConnectionStore());
    const connection = await connect(connections);
    const before = stats();
    const token = connections.token("user-42");
    const results = await Promise.all(Array.from({ length: 100 }, () => token({ rejected: connection.idToken, signal: undefined })));
    expect(new Set(results).size).toBe(1);
    expect(results[0]).not.toBe(connection.idToken);
    expect(stats().refreshes).toBe(before.refreshes + 1);
  });

  it("two managers on one store (two processes' worth) cause 1 refresh and never reuse a spent refresh token", async () => {
    const store = memoryConnectionStore();
    const a = make(store);
    const b = make(store);
    const connection = await connect(a);
    await b.token("user-42")();
    const before = stats();
    const gate = idp.hold();
    const calls = [a, b].flatMap((m) => Array.from({ length: 20 }, () => m.token("user-42")({ rejected: connection.idToken, signal: undefined })));
    await until(() => gate.waiting() === 1);
    // While the IdP answers, the row carries the lease: a random owner, and until = now + leaseMs on the holder's clock.
    const leased = (await store.get("user-42"))!;
    expect(leased.lease!.owner).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(leased.lease!.until).toBeGreaterThan(Date.now() + 20_000);
    expect(leased.lease!.until).toBeLessThanOrEqual(Date.now() + 30_000);
    expect(leased).toMatchObject({ version: connection.version + 1, refreshToken: connection.refreshToken, idToken: connection.idToken });
    gate.release();
    const results = await Promise.all(calls);
    expect(new Set(results).size).toBe(1);
    expect(stats().refreshes).toBe(before.refreshes + 1);
    expect(stats().refreshesRejected).toBe(before.refreshesRejected);
  });

  it("a lease holder slower than leaseMs still writes its tokens, onto the current version", async () => {
    const spy = spyStore();
    const connections = make(spy.store, { leaseMs: 1_000 });
    const connection = await connect(connections);
    spy.beforeWrite = async (id, _expected, next) => {
      if (next.lease || next.idToken === connection.idToken) return;
      spy.beforeWrite = undefined;
      await new Promise((r) => setTimeout(r, 1_100));
      // Meanwhile another process judged the lease dead and took it.
      await writeAsOther(spy.inner, id, { lease: { owner: "other-host", until: Date.now() + 20 } });
    };
    const fresh = await connections.token("user-42")({ rejected: connection.idToken, signal: undefined });
    const stored = (await spy.inner.get("user-42"))!;
    // 1 created, 2 leased, 3 taken by the other host, 4 written onto it.
    expect(stored).toMatchObject({ idToken: fresh, status: "active", lease: undefined, version: 4 });
    expect(stored.refreshToken).not.toBe(connection.refreshToken);
  });

  it("the slow holder writes over a reauthorization_required row too (the tokens are good)", async () => {
    const spy = spyStore();
    const changes: string[] = [];
    const connections = make(spy.store, { leaseMs: 1_000, onStatusChange: (c, p) => void changes.push(`${p}->${c.status}`) });
    const connection = await connect(connections);
    spy.beforeWrite = async (id, _e, next) => {
      if (next.lease || next.idToken === connection.idToken) return;
      spy.beforeWrite = undefined;
      await writeAsOther(spy.inner, id, { status: "reauthorization_required", idToken: "", refreshToken: "", lease: undefined });
    };
    const fresh = await connections.token("user-42")({ rejected: connection.idToken, signal: undefined });
    expect((await spy.inner.get("user-42"))!).toMatchObject({ idToken: fresh, status: "active" });
    expect(changes).toEqual(["undefined->active", "reauthorization_required->active"]);
  });

  for (const [what, change] of [
    ["revoked", (store: ConnectionStore) => writeAsOther(store, "user-42", { status: "revoked", idToken: "", refreshToken: "", lease: undefined })],
    ["deleted", (store: ConnectionStore) => store.delete("user-42")],
  ] as const) {
    it(`a row ${what} meanwhile gets the new refresh token revoked instead`, async () => {
      const spy = spyStore();
      const connections = make(spy.store);
      const connection = await connect(connections);
      spy.beforeWrite = async (_id, _e, next) => {
        if (next.lease || next.idToken === connection.idToken) return;
        spy.beforeWrite = undefined;
        await change(spy.inner);
      };
      const revokedBefore = idp.revoked.length;
      const error = await rejectionOf(connections.token("user-42")({ rejected: connection.idToken, signal: undefined }));
      expect(error).toBeInstanceOf(FdxReauthorizationRequiredError);
      expect(error).toMatchObject({ reason: what === "revoked" ? "revoked" : "not_found" });
      const newlyRevoked = idp.revoked.slice(revokedBefore);
      expect(newlyRevoked).toHaveLength(1);
      expect(newlyRevoked[0]).not.toBe(connection.refreshToken);
      expect(newlyRevoked[0]).toMatch(/^rt-/);
      const stored = await spy.inner.get("user-42");
      if (stored) expect(stored).toMatchObject({ status: "revoked", idToken: "", refreshToken: "" });
    });
  }

  it("a row replaced by a new authorization meanwhile: the new refresh token is revoked, and the replacement is used", async () => {
    const spy = spyStore();
    const connections = make(spy.store);
    const connection = await connect(connections);
    spy.beforeWrite = async (id, _e, next) => {
      if (next.lease || next.idToken === connection.idToken) return;
      spy.beforeWrite = undefined;
      await writeAsOther(spy.inner, id, { createdAt: Date.now() + 1, idToken: "replacement-id-token", refreshToken: "replacement-rt", lease: undefined });
    };
    const revokedBefore = idp.revoked.length;
    expect(await connections.token("user-42")({ rejected: connection.idToken, signal: undefined })).toBe("replacement-id-token");
    expect(idp.revoked.slice(revokedBefore)).toHaveLength(1);
    expect((await spy.inner.get("user-42"))!.refreshToken).toBe("replacement-rt");
  });

  it("a failed write of refreshed tokens is retried while callers use the new token", async () => {
    const spy = spyStore();
    const connections = make(spy.store, { leaseMs: 2_000 });
    const connection = await connect(connections);
    let failures = 0;
    spy.beforeWrite = (_id, _e, next) => {
      if (next.lease || next.idToken === connection.idToken) return;
      if (failures++ < 2) throw new Error("store down");
    };
    const fresh = await connections.token("user-42")({ rejected: connection.idToken, signal: undefined });
    expect(fresh).not.toBe(connection.idToken);
    expect(await connections.token("user-42")()).toBe(fresh);
    await until(() => failures > 2);
    await vi.waitFor(async () => expect((await spy.inner.get("user-42"))!.idToken).toBe(fresh));
    // The next refresh uses the written pair, not the spent one.
    const before = stats();
    await connections.refresh("user-42");
    expect(stats().refreshesRejected).toBe(before.refreshesRejected);
  });

  it("lease liveness comes from the row's version on this process's clock, not from the other host's until", async () => {
    const spy = spyStore();
    // Connected through a manager with the default lease: the token endpoint's timeout is under leaseMs / 2,
    // and 24 ms for the code exchange could run out on a loaded machine before the wait under test begins.
    const connection = await connect(make(spy.store));
    const connections = make(spy.store, { leaseMs: 50 });
    // The other host's clock is far behind: its `until` is long past, yet its lease is live.
    await writeAsOther(spy.inner, "user-42", { lease: { owner: "other-host", until: 0 } });
    const before = stats();
    const waiting = connections.token("user-42")({ rejected: connection.idToken, signal: undefined });
    const reads = spy.counts.get;
    await until(() => spy.counts.get > reads + 3);
    expect(stats().refreshes).toBe(before.refreshes);
    await writeAsOther(spy.inner, "user-42", { lease: undefined, idToken: "the-other-hosts-token" });
    expect(await waiting).toBe("the-other-hosts-token");
    expect(stats().refreshes).toBe(before.refreshes);
  });

  it("a lease whose row does not move for leaseMs + 5 s is taken over, whatever its until says", async () => {
    const spy = spyStore();
    // 2 s, not less: the token endpoint's timeout is under leaseMs / 2 (999 ms here), and the exchange and the
    // refresh must not time out on a loaded machine. The wait is leaseMs + 5 s = 7 s.
    const connections = make(spy.store, { leaseMs: 2_000 });
    const connection = await connect(connections);
    await writeAsOther(spy.inner, "user-42", { lease: { owner: "crashed-host", until: Date.now() + 1e12 } });
    const before = stats();
    const fresh = await connections.token("user-42")({ rejected: connection.idToken, signal: undefined });
    expect(fresh).not.toBe(connection.idToken);
    expect(stats().refreshes).toBe(before.refreshes + 1);
    expect((await spy.inner.get("user-42"))!.lease).toBeUndefined();
  }, 30_000);

  const answer = (status: number, body: unknown) => {
    idp.override = ({ path }, res) =>
      path === "/token" ? (res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body)), true) : false;
  };

  for (const error of ["invalid_grant", "invalid_request"]) {
    it(`${error} with nothing newer in the store ends the connection: reauthorization_required, tokens erased`, async () => {
      const store = memoryConnectionStore();
      const changes: [Connection, string | undefined][] = [];
      const connections = make(store, {
        onStatusChange: (c, p) => {
          changes.push([c, p]);
          throw new Error("a hook that throws undoes nothing");
        },
      });
      const connection = await connect(connections);
      answer(400, { error, error_description: `spent: ${connection.refreshToken}` });
      const thrown = (await rejectionOf(connections.token("user-42")({ rejected: connection.idToken, signal: undefined }))) as FdxReauthorizationRequiredError;
      expect(thrown).toBeInstanceOf(FdxReauthorizationRequiredError);
      expect(thrown).toMatchObject({ connectionId: "user-42", reason: error });
      expect((thrown.cause as FdxAuthError).status).toBe(400);
      expectClean(await renderings(thrown), [connection.refreshToken, connection.idToken]);
      expect(await store.get("user-42")).toMatchObject({ status: "reauthorization_required", idToken: "", refreshToken: "", lease: undefined });
      expect(changes.at(-1)![0]).toMatchObject({ status: "reauthorization_required" });
      expect(changes.at(-1)![1]).toBe("active");
      expect(await rejectionOf(connections.token("user-42")())).toMatchObject({ reason: "reauthorization_required" });
    });
  }

  it("invalid_request after another process rotated the pair: the newer pair is used, the connection lives", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    const connection = await connect(connections);
    idp.override = async ({ path }, res) => {
      if (path !== "/token") return false;
      // Another process got there first (it judged our lease dead) and stored its pair.
      await writeAsOther(store, "user-42", { idToken: "rotated-elsewhere", refreshToken: "rt-elsewhere", lease: undefined });
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid_request" }));
      return true;
    };
    expect(await connections.token("user-42")({ rejected: connection.idToken, signal: undefined })).toBe("rotated-elsewhere");
    expect(await store.get("user-42")).toMatchObject({ status: "active", refreshToken: "rt-elsewhere" });
  });

  const keeps: [string, () => void, (e: unknown) => void][] = [
    ["invalid_client", () => answer(401, { error: "invalid_client" }), (e) => expect(e).toMatchObject({ error: "invalid_client", status: 401 })],
    ["a 500", () => answer(500, { error: "server_error" }), (e) => expect(e).toMatchObject({ error: "server_error", status: 500 })],
    [
      "a 502 page",
      () => (idp.override = ({ path }, res) => (path === "/token" ? (res.writeHead(502, { "content-type": "text/html" }).end("<h1>502</h1>"), true) : false)),
      (e) => expect(e).toBeInstanceOf(FdxApiError),
    ],
    [
      "a network error",
      () => (idp.override = ({ path }, res) => (path === "/token" ? (res.socket!.destroy(), true) : false)),
      (e) => expect(e).toBeInstanceOf(FdxConnectionError),
    ],
    ["a timeout", () => (idp.override = ({ path }) => path === "/token"), (e) => expect(e).toBeInstanceOf(FdxTimeoutError)],
    ["an unreadable answer", () => answer(200, { nothing: true }), (e) => expect(e).toMatchObject({ name: "FdxResponseError" })],
    ["a changed sub", () => (idp.extraClaims = { sub: "someone-else" }), (e) => expect(e).toMatchObject({ error: "invalid_id_token" })],
  ];
  for (const [name, setup, check] of keeps) {
    it(`${name} keeps the tokens and clears the lease`, async () => {
      const store = memoryConnectionStore();
      // The token endpoint's timeout is under leaseMs / 2.
      const connections = make(store, { leaseMs: 2_000 });
      const connection = await connect(connections);
      setup();
      const error = await rejectionOf(connections.token("user-42")({ rejected: connection.idToken, signal: undefined }));
      check(error);
      expectClean(await renderings(error), [connection.refreshToken, CLIENT_SECRET]);
      expect(await store.get("user-42")).toMatchObject({
        status: "active",
        idToken: connection.idToken,
        refreshToken: connection.refreshToken,
        lease: undefined,
      });
    });
  }

  it("a failed refresh whose lease cannot be cleared throws the refresh's error; the lease is left to expire", async () => {
    const spy = spyStore();
    const connections = make(spy.store);
    const connection = await connect(connections);
    answer(500, { error: "server_error" });
    spy.beforeWrite = (_id, _e, next) => {
      if (!next.lease) throw new Error("store down");
    };
    const error = await rejectionOf(connections.token("user-42")({ rejected: connection.idToken, signal: undefined }));
    expect(error).toMatchObject({ error: "server_error" });
    expect((await spy.inner.get("user-42"))!.lease).toBeDefined();
  });

  it("a stored id token that is not a JWT is still refreshed (nothing to compare the new claims with)", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    await connect(connections);
    await writeAsOther(store, "user-42", { idToken: "opaque.not-json.x" });
    const fresh = await make(store).token("user-42")({ rejected: "opaque.not-json.x", signal: undefined });
    expect(fresh.split(".")).toHaveLength(3);
  });

  it("the token endpoint's timeout stays under half the lease", async () => {
    const seen: (number | undefined)[] = [];
    const recording: AuthClient = {
      ...auth,
      // Not sent: a request that timed out on our side would still reach the IdP later and upset other tests' counts.
      refresh: (_refreshToken, options) => {
        seen.push(options?.timeoutMs);
        return Promise.reject(new Error("not sent"));
      },
    };
    for (const leaseMs of [30_000, 11]) {
      const store = memoryConnectionStore();
      await connect(make(store));
      await createConnections({ auth: recording, store, refreshBeforeMs: 0, leaseMs })
        .refresh("user-42")
        .catch(() => undefined);
    }
    expect(seen).toEqual([14_999, 5]);
  });

  it("exchanges and revocations get the same timeout, under half the lease", async () => {
    const seen: [string, number | undefined][] = [];
    const recording: AuthClient = {
      ...auth,
      exchangeCode: (url, checks, options) => {
        seen.push(["exchangeCode", options?.timeoutMs]);
        return auth.exchangeCode(url, checks, options);
      },
      revoke: (refreshToken, options) => {
        seen.push(["revoke", options?.timeoutMs]);
        return auth.revoke(refreshToken, options);
      },
    };
    const connections = createConnections({ auth: recording, store: memoryConnectionStore() });
    await connect(connections, "user-42");
    // A new authorization by name: the old refresh token is revoked quietly.
    const req = await auth.authorizationUrl({ connector: "mikomo" });
    await connections.complete(() => "user-42", idp.callback(req.url), req);
    await connections.revoke("user-42");
    expect(seen).toEqual([
      ["exchangeCode", 14_999],
      ["exchangeCode", 14_999],
      ["revoke", 14_999],
      ["revoke", 14_999],
    ]);
  });

  it("a failed proactive refresh returns the still-valid token and waits 30 s before trying again", async () => {
    const connections = make(memoryConnectionStore(), { refreshBeforeMs: 300_000 });
    nearExpiry();
    const connection = await connect(connections);
    answer(503, { error: "temporarily_unavailable" });
    const before = stats();
    const bodies = idp.bodies.length;
    expect(await connections.token("user-42")()).toBe(connection.idToken);
    expect(await connections.token("user-42")()).toBe(connection.idToken);
    expect(idp.bodies.length).toBe(bodies + 1);
    expect(stats().refreshes).toBe(before.refreshes);
  });

  it("rejections of unexpired tokens trigger at most one refresh per connection per 30 s", async () => {
    const connections = make(memoryConnectionStore());
    const connection = await connect(connections);
    const before = stats();
    const token = connections.token("user-42");
    const second = await token({ rejected: connection.idToken, signal: undefined });
    // The server refuses the new one as well: handed back, so the 401 reaches the caller instead of another refresh.
    expect(await token({ rejected: second, signal: undefined })).toBe(second);
    expect(await token({ rejected: second, signal: undefined })).toBe(second);
    expect(stats().refreshes).toBe(before.refreshes + 1);
    // A rejected token that is not the current one is simply replaced.
    expect(await token({ rejected: connection.idToken, signal: undefined })).toBe(second);
  });

  it("an expired token is refreshed even within 30 s of a rejection refresh", async () => {
    const connections = make(memoryConnectionStore());
    idp.idTokenTtlS = -10;
    const connection = await connect(connections);
    const before = stats();
    const second = await connections.token("user-42")({ rejected: connection.idToken, signal: undefined });
    const third = await connections.token("user-42")({ rejected: second, signal: undefined });
    expect(third).not.toBe(second);
    expect(stats().refreshes).toBe(before.refreshes + 2);
  });
});

describe("refresh(id) and revoke(id)", () => {
  it("refresh(id) refreshes now, once, even with an unexpired token", async () => {
    const connections = make(memoryConnectionStore());
    const connection = await connect(connections);
    const before = stats();
    const [a, b] = await Promise.all([connections.refresh("user-42"), connections.refresh("user-42")]);
    expect(a.idToken).toBe(b.idToken);
    expect(a.idToken).not.toBe(connection.idToken);
    expect(stats().refreshes).toBe(before.refreshes + 1);
    expect(await rejectionOf(connections.refresh(""))).toBeInstanceOf(FdxValidationError);
  });

  it("revoke(id) revokes at the IdP and erases the tokens; a throwing hook does not undo it", async () => {
    const store = memoryConnectionStore();
    const changes: string[] = [];
    const connections = make(store, {
      onStatusChange: async (c, p) => {
        changes.push(`${p}->${c.status}`);
        throw new Error("hook failed");
      },
    });
    const connection = await connect(connections);
    await connections.revoke("user-42");
    expect(idp.revoked.at(-1)).toBe(connection.refreshToken);
    expect(await store.get("user-42")).toMatchObject({ status: "revoked", idToken: "", refreshToken: "", lease: undefined });
    expect(changes).toEqual(["undefined->active", "active->revoked"]);
    expect(await rejectionOf(connections.token("user-42")())).toMatchObject({ reason: "revoked" });
    // Again, or of nothing: no error, no request.
    const before = stats();
    await connections.revoke("user-42");
    await connections.revoke("nobody");
    expect(stats().revocations).toBe(before.revocations);
  });

  it("revoke(id) writes revoked even when the IdP call fails, then throws", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    const connection = await connect(connections);
    idp.override = ({ path }, res) =>
      path === "/revoke"
        ? (res
            .writeHead(503, { "content-type": "application/json" })
            .end(JSON.stringify({ error: "temporarily_unavailable", error_description: connection.refreshToken })),
          true)
        : false;
    const error = await rejectionOf(connections.revoke("user-42"));
    expect(error).toMatchObject({ error: "temporarily_unavailable", status: 503 });
    expectClean(await renderings(error), [connection.refreshToken]);
    expect(await store.get("user-42")).toMatchObject({ status: "revoked", idToken: "", refreshToken: "" });
  });

  it("revoke(id) of a reauthorization-required connection marks it revoked without calling the IdP", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    await connect(connections);
    await writeAsOther(store, "user-42", { status: "reauthorization_required", idToken: "", refreshToken: "" });
    const before = stats();
    await connections.revoke("user-42");
    expect(stats().revocations).toBe(before.revocations);
    expect(await store.get("user-42")).toMatchObject({ status: "revoked" });
  });

  it("revoke(id) waits for another process's lease, then revokes the pair it stored", async () => {
    const spy = spyStore();
    const connections = make(spy.store);
    await connect(connections);
    await writeAsOther(spy.inner, "user-42", { lease: { owner: "other-host", until: Date.now() + 30_000 } });
    const revoking = connections.revoke("user-42");
    const reads = spy.counts.get;
    await until(() => spy.counts.get > reads + 1);
    await writeAsOther(spy.inner, "user-42", { lease: undefined, refreshToken: "rt-from-the-other-host" });
    await revoking;
    expect(idp.revoked.at(-1)).toBe("rt-from-the-other-host");
    expect(await spy.inner.get("user-42")).toMatchObject({ status: "revoked", refreshToken: "" });
  });

  it("revoke(id) whose write is overtaken writes again, and revokes a pair written meanwhile too", async () => {
    const spy = spyStore();
    const connections = make(spy.store);
    const connection = await connect(connections);
    spy.beforeWrite = async (id, _e, next) => {
      if (next.status !== "revoked") return;
      spy.beforeWrite = undefined;
      await writeAsOther(spy.inner, id, { refreshToken: "rt-written-meanwhile", lease: undefined });
    };
    await connections.revoke("user-42");
    expect(idp.revoked.slice(-2)).toEqual([connection.refreshToken, "rt-written-meanwhile"]);
    expect(await spy.inner.get("user-42")).toMatchObject({ status: "revoked", refreshToken: "" });
  });
});

describe("checks and store errors name what was wrong", () => {
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
  const fn = () => undefined;

  it("createConnections lists every bad option with its rule", () => {
    const store = memoryConnectionStore();
    expect(
      issuesOf(() => createConnections({ auth, store, refreshBeforeMs: -1, leaseMs: 9, cacheTtlMs: 1.5, cacheSize: 0, onStatusChange: 1 as never })),
    ).toEqual([
      { path: "refreshBeforeMs", message: "must be an integer >= 0" },
      { path: "leaseMs", message: "must be an integer >= 10" },
      { path: "cacheTtlMs", message: "must be an integer >= 0" },
      { path: "cacheSize", message: "must be an integer >= 1" },
      { path: "onStatusChange", message: "must be a function" },
    ]);
    const AUTH = { path: "auth", message: "must be an AuthClient (createAuthClient)" };
    const STORE = { path: "store", message: "must be a ConnectionStore" };
    expect(issuesOf(() => createConnections({ auth: { refresh: fn } as never, store }))).toEqual([AUTH]);
    expect(issuesOf(() => createConnections({ auth: { exchangeCode: fn } as never, store }))).toEqual([AUTH]);
    const full = { get: fn, compareAndSet: fn, list: fn, delete: fn };
    for (const missing of ["get", "compareAndSet", "list", "delete"] as const) {
      const { [missing]: _gone, ...partial } = full;
      expect(issuesOf(() => createConnections({ auth, store: partial as never }))).toEqual([STORE]);
    }
    expect(() => createConnections({ auth, store: full as never })).not.toThrow();
  });

  it("every id and consent id must be a non-empty string", async () => {
    const connections = make(memoryConnectionStore());
    const ID = [{ path: "id", message: NON_EMPTY }];
    expect(issuesOf(() => connections.token(""))).toEqual(ID);
    expect(issuesOf(() => connections.token(5 as never))).toEqual(ID);
    for (const call of [
      connections.get(""),
      connections.refresh(""),
      connections.revoke(""),
      connections.complete("", "http://127.0.0.1/cb", { state: "s", codeVerifier: "v" }),
    ]) {
      expect(((await rejectionOf(call)) as FdxValidationError).issues).toEqual(ID);
    }
    expect(((await rejectionOf(connections.findByConsentId(""))) as FdxValidationError).issues).toEqual([{ path: "consentId", message: NON_EMPTY }]);
  });

  it("a store error says which operation failed, for which connection, and keeps only the error's name and code", async () => {
    let thrown: unknown;
    const failing: ConnectionStore = {
      get: async () => {
        throw thrown;
      },
      compareAndSet: async () => {
        throw thrown;
      },
      delete: async () => undefined,
      list: () => ({
        [Symbol.asyncIterator]: () => ({
          next: async () => {
            throw thrown;
          },
        }),
      }),
      findByConsentId: async () => {
        throw thrown;
      },
    };
    const connections = make(failing);
    const messageOf = async (promise: Promise<unknown>) => {
      const error = (await rejectionOf(promise)) as FdxConnectionStoreError;
      expect(error).toBeInstanceOf(FdxConnectionStoreError);
      expect(error.reason).toBe("store_error");
      return error;
    };
    thrown = Object.assign(new Error("connection to 10.0.0.5 refused"), { code: "ECONNREFUSED" });
    const get = await messageOf(connections.get("u"));
    expect(get.message).toBe('The connection store\'s get failed for connection "u" (Error ECONNREFUSED)');
    expect(get.connectionId).toBe("u");
    expect(get.cause).toMatchObject({ name: "Error", code: "ECONNREFUSED", message: "Error ECONNREFUSED" });
    thrown = Object.assign(new TypeError("x"), { code: 42 });
    const noCode = await messageOf(connections.get("u"));
    expect(noCode.message).toBe('The connection store\'s get failed for connection "u" (TypeError)');
    expect(noCode.cause).not.toHaveProperty("code");
    thrown = null;
    expect((await messageOf(connections.get("u"))).message).toBe('The connection store\'s get failed for connection "u" (object)');
    thrown = "plain";
    const listed = await messageOf(
      (async () => {
        for await (const _ of connections.list());
      })(),
    );
    expect(listed.message).toBe("The connection store's list failed (string)");
    expect(listed.connectionId).toBeUndefined();
    expect((await messageOf(connections.findByConsentId("c"))).message).toBe("The connection store's findByConsentId failed (string)");
    // An FdxError from the store (a wrapper's own check) passes through as it is.
    thrown = new FdxValidationError([{ path: "x", message: "y" }]);
    expect(await rejectionOf(connections.get("u"))).toBe(thrown);
  });

  it("a failing write says compareAndSet", async () => {
    const spy = spyStore();
    const connections = make(spy.store);
    await connect(connections);
    spy.beforeWrite = () => {
      throw new RangeError("disk full");
    };
    // revoke(id) first writes its lease, and a store error there ends it (complete() would retry for leaseMs).
    const error = (await rejectionOf(connections.revoke("user-42"))) as FdxConnectionStoreError;
    expect(error.message).toBe('The connection store\'s compareAndSet failed for connection "user-42" (RangeError)');
  });

  it("findByConsentId uses the store's index when it has one (list() is not read)", async () => {
    const inner = memoryConnectionStore();
    const connections = make({
      ...inner,
      list: () => {
        throw new Error("list() must not be read");
      },
    });
    await connect(connections, "a", { grantId: "ca" });
    expect((await connections.findByConsentId("ca"))?.id).toBe("a");
  });

  it("a row of another issuer is refused with a message naming it", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    await connect(connections, "c");
    await writeAsOther(store, "c", { issuer: "/production" });
    const error = (await rejectionOf(connections.get("c"))) as FdxConnectionStoreError;
    expect(error.message).toBe('Connection "c" belongs to another issuer or client: not used');
    expect(error).toMatchObject({ reason: "foreign_connection", connectionId: "c" });
  });

  it("an id function naming a row of another issuer: nothing replaced, the new refresh token revoked", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    await connect(connections, "user-sub-1");
    await writeAsOther(store, "user-sub-1", { issuer: "/production" });
    const foreign = (await store.get("user-sub-1"))!;
    const req = await auth.authorizationUrl({ connector: "mikomo" });
    const before = stats();
    const error = await rejectionOf(connections.complete((t) => t.subject, idp.callback(req.url), req));
    expect(error).toMatchObject({ reason: "foreign_connection" });
    expect(stats().revocations).toBe(before.revocations + 1);
    expect(await store.get("user-sub-1")).toEqual(foreign);
  });

  it("onStatusChange hears of changes of status only, with a copy of the row", async () => {
    const store = memoryConnectionStore();
    const seen: [string, string | undefined, string[]][] = [];
    const connections = make(store, {
      onStatusChange: (c, previous) => {
        seen.push([c.status, previous, c.accounts]);
        c.accounts.push("added-by-the-hook");
      },
    });
    await connect(connections, "user-42", { accounts: ["a1"] });
    // A new authorization of an active connection: still active, nothing to tell.
    await connect(connections, "user-42", { accounts: ["a1"] });
    expect(seen).toEqual([["active", undefined, ["a1", "added-by-the-hook"]]]);
    expect((await store.get("user-42"))!.accounts).toEqual(["a1"]);
  });

  it("revoke(id) of a revoked connection writes nothing", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    await connect(connections);
    await connections.revoke("user-42");
    const revoked = (await store.get("user-42"))!;
    await connections.revoke("user-42");
    expect(await store.get("user-42")).toEqual(revoked);
  });

  it("revoke(id) overtaken by another process's revocation writes nothing more", async () => {
    const spy = spyStore();
    const connections = make(spy.store);
    await connect(connections);
    let after: Connection | undefined;
    spy.beforeWrite = async (id, _e, next) => {
      if (next.status !== "revoked") return;
      spy.beforeWrite = undefined;
      await writeAsOther(spy.inner, id, { status: "revoked", idToken: "", refreshToken: "", lease: undefined });
      after = (await spy.inner.get(id))!;
    };
    await connections.revoke("user-42");
    expect(await spy.inner.get("user-42")).toEqual(after);
  });

  it("revoke(id) overtaken by a write that kept the same pair revokes that pair once", async () => {
    const spy = spyStore();
    const connections = make(spy.store);
    const connection = await connect(connections);
    spy.beforeWrite = async (id, _e, next) => {
      if (next.status !== "revoked") return;
      spy.beforeWrite = undefined;
      await writeAsOther(spy.inner, id, { accounts: ["changed"], lease: undefined });
    };
    const before = stats();
    await connections.revoke("user-42");
    expect(stats().revocations).toBe(before.revocations + 1);
    expect(idp.revoked.at(-1)).toBe(connection.refreshToken);
    expect(await spy.inner.get("user-42")).toMatchObject({ status: "revoked", accounts: ["changed"] });
  });
});
