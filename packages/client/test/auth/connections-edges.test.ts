// Edges of createConnections (DESIGN.md §10) that the main suite leaves open:
// the exact bounds of the waits and retries (on fake clocks), the storm
// bounds at their limits, and the refusals that must not end a connection.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createAuthClient,
  createConnections,
  FdxAuthError,
  FdxConnectionStoreError,
  FdxReauthorizationRequiredError,
  memoryConnectionStore,
  type AuthClient,
  type Connection,
  type ConnectionStore,
  type ConnectionsOptions,
  type TokenSet,
} from "../../src/auth/index.js";
import { FdxAbortError } from "../../src/index.js";
import { rejectionOf } from "../support/http.js";
import { CLIENT_ID, CLIENT_SECRET, ISSUER, REDIRECT_URI, startIdp, type TestIdp } from "../support/idp.js";

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
  vi.useRealTimers();
  idp.override = undefined;
  idp.extraClaims = {};
  idp.extraAnswer = {};
  idp.accessTokenTtlS = undefined;
  idp.idTokenTtlS = 3600;
});

/** A store that counts reads and writes and lets a test step in after a read or before a write. */
function hookedStore(inner: ConnectionStore = memoryConnectionStore()) {
  const h = {
    inner,
    reads: 0,
    writes: [] as Connection[],
    /** Runs before each get; may throw or wait. */
    beforeRead: undefined as undefined | ((id: string) => void | Promise<void>),
    /** Runs after each get, with what it read; may throw or wait. */
    afterRead: undefined as undefined | ((id: string, row: Connection | undefined) => void | Promise<void>),
    /** Runs before each compareAndSet; may throw or wait. */
    beforeWrite: undefined as undefined | ((id: string, expected: number, next: Connection) => void | Promise<void>),
    store: {
      get: async (id: string) => {
        h.reads++;
        await h.beforeRead?.(id);
        const row = await inner.get(id);
        await h.afterRead?.(id, row);
        return row;
      },
      compareAndSet: async (id: string, expected: number, next: Connection) => {
        h.writes.push(next);
        await h.beforeWrite?.(id, expected, next);
        return inner.compareAndSet(id, expected, next);
      },
      delete: (id: string) => inner.delete(id),
      list: () => inner.list(),
    } satisfies ConnectionStore,
  };
  return h;
}

const stats = () => ({ ...idp.stats });
const make = (store: ConnectionStore, extra: Partial<ConnectionsOptions> = {}) => createConnections({ auth, store, refreshBeforeMs: 0, ...extra });

async function connect(connections: ReturnType<typeof createConnections>, id = "user-42") {
  const req = await auth.authorizationUrl({ connector: "mikomo" });
  return connections.complete(id, idp.callback(req.url), req);
}

/** Writes `patch` onto the stored row as another process would. */
async function writeAsOther(store: ConnectionStore, id: string, patch: Partial<Connection>) {
  const row = (await store.get(id))!;
  expect(await store.compareAndSet(id, row.version, { ...row, ...patch, version: row.version + 1, updatedAt: Date.now() })).toBe(true);
}

const until = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
};

const answer = (status: number, body: unknown) => {
  idp.override = ({ path }, res) =>
    path === "/token" ? (res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body)), true) : false;
};

/** An AuthClient that answers refreshes and exchanges with sets fetched beforehand (no network: the clock can be fake), recording what it is asked. */
function scripted(sets: TokenSet[]) {
  const calls = { refresh: [] as string[], exchange: 0, revoke: [] as string[] };
  const client: AuthClient = {
    ...auth,
    refresh: async (refreshToken) => {
      calls.refresh.push(refreshToken);
      return sets.shift()!;
    },
    exchangeCode: async () => {
      calls.exchange++;
      return sets.shift()!;
    },
    revoke: async (refreshToken) => {
      calls.revoke.push(refreshToken);
    },
  };
  return { client, calls };
}

/** A fresh token set from the IdP, spent nowhere. */
async function tokenSet(): Promise<TokenSet> {
  const req = await auth.authorizationUrl({ connector: "mikomo" });
  return auth.exchangeCode(idp.callback(req.url), req);
}

/** Timers, performance.now() and Date.now() on a fake clock, from now. */
const fakeClock = () => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance", "Date"], now: Date.now() });

describe("waiting for another process's lease (fake clock)", () => {
  it("polls the store every leaseMs / 20 and takes a lease over once its row has not moved for exactly leaseMs + 5 s", async () => {
    const set = await tokenSet();
    const connection = await connect(make(memoryConnectionStore()));
    const h = hookedStore();
    // The other host's lease sits on the row's very first version.
    expect(await h.inner.compareAndSet("user-42", 0, { ...connection, version: 1, lease: { owner: "other-host", until: 0 } })).toBe(true);
    const { client, calls } = scripted([set]);
    fakeClock();
    // This process has been up a while.
    vi.advanceTimersByTime(600_000);
    const connections = createConnections({ auth: client, store: h.store, refreshBeforeMs: 0, leaseMs: 1_000 });
    let result: string | undefined;
    void connections
      .token("user-42")({ rejected: connection.idToken, signal: undefined })
      .then((t) => (result = t));
    await vi.advanceTimersByTimeAsync(0);
    const reads = h.reads;
    await vi.advanceTimersByTimeAsync(1_000);
    // One read per 50 ms.
    expect(h.reads - reads).toBe(20);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(calls.refresh).toEqual([]);
    expect((await h.inner.get("user-42"))!.lease!.owner).toBe("other-host");
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.refresh).toEqual([connection.refreshToken]);
    expect(result).toBe(set.idToken);
    expect(await h.inner.get("user-42")).toMatchObject({ idToken: set.idToken, lease: undefined });
  });
});

describe("a store that fails the write of refreshed tokens (fake clock)", () => {
  it("the write is retried with doubling waits up to 1 s, the last try exactly leaseMs after the first, then no more", async () => {
    const set = await tokenSet();
    const connection = await connect(make(memoryConnectionStore()));
    const h = hookedStore();
    await h.inner.compareAndSet("user-42", 0, connection);
    const { client } = scripted([set]);
    let tries = 0;
    h.beforeWrite = (_id, _e, next) => {
      if (next.idToken !== set.idToken) return;
      tries++;
      throw new Error("store down");
    };
    fakeClock();
    const connections = createConnections({ auth: client, store: h.store, refreshBeforeMs: 0, leaseMs: 2_000 });
    // Callers get the new token at once, from memory.
    expect(await connections.token("user-42")({ rejected: connection.idToken, signal: undefined })).toBe(set.idToken);
    expect(tries).toBe(1);
    // Retries at 100, 300, 700 and 1 500 ms, then at 2 000 (the rest of the lease).
    await vi.advanceTimersByTimeAsync(100);
    expect(tries).toBe(2);
    await vi.advanceTimersByTimeAsync(1_400);
    expect(tries).toBe(5);
    await vi.advanceTimersByTimeAsync(499);
    expect(tries).toBe(5);
    await vi.advanceTimersByTimeAsync(1);
    expect(tries).toBe(6);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(tries).toBe(6);
  });

  it("a retry that finds the row unreadable (another key) stops retrying", async () => {
    const set = await tokenSet();
    const connection = await connect(make(memoryConnectionStore()));
    const h = hookedStore();
    await h.inner.compareAndSet("user-42", 0, connection);
    const { client } = scripted([set]);
    let tries = 0;
    h.beforeWrite = async (id, _e, next) => {
      if (next.idToken !== set.idToken) return;
      if (++tries === 1) throw new Error("store down");
      // Another process moved the row meanwhile, with a key this one lacks.
      await writeAsOther(h.inner, id, { accounts: ["moved"] });
      h.afterRead = () => {
        throw new FdxConnectionStoreError('The idToken of connection "user-42" does not decrypt: no key has the id "k2"', {
          connectionId: "user-42",
          reason: "undecryptable",
        });
      };
    };
    fakeClock();
    const connections = createConnections({ auth: client, store: h.store, refreshBeforeMs: 0, leaseMs: 2_000 });
    expect(await connections.token("user-42")({ rejected: connection.idToken, signal: undefined })).toBe(set.idToken);
    const reads = h.reads;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(tries).toBe(2);
    expect(h.reads - reads).toBe(1);
  });

  it("a first write that finds the row unreadable throws that error rather than handing out the new token", async () => {
    const h = hookedStore();
    const connections = make(h.store);
    const connection = await connect(connections);
    h.beforeWrite = async (id, _e, next) => {
      if (next.lease || next.idToken === connection.idToken) return;
      h.beforeWrite = undefined;
      await writeAsOther(h.inner, id, { accounts: ["moved"] });
      h.afterRead = () => {
        throw new FdxConnectionStoreError('The idToken of connection "user-42" does not decrypt: no key has the id "k2"', {
          connectionId: "user-42",
          reason: "undecryptable",
        });
      };
    };
    const error = await rejectionOf(connections.token("user-42")({ rejected: connection.idToken, signal: undefined }));
    expect(error).toBeInstanceOf(FdxConnectionStoreError);
    expect(error).toMatchObject({ reason: "undecryptable", connectionId: "user-42" });
  });
});

describe("complete() on a failing store (fake clock)", () => {
  it("retries the write with doubling waits up to 1 s until leaseMs has passed, then revokes the new refresh token and throws", async () => {
    const set = await tokenSet();
    const h = hookedStore();
    const { client, calls } = scripted([set]);
    h.beforeWrite = () => {
      throw new Error("store down");
    };
    fakeClock();
    // leaseMs 5 750: waits of 250 (the cap of leaseMs / 20), 500, then 1 000 ms; the 8th try falls exactly on the deadline.
    const connections = createConnections({ auth: client, store: h.store, leaseMs: 5_750 });
    let settled: unknown;
    void connections.complete("user-42", "http://127.0.0.1:9/callback?code=c&state=s", { state: "s", codeVerifier: "v" }).catch((e) => (settled = e));
    await vi.advanceTimersByTimeAsync(0);
    expect(h.writes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    // Tries at 0, 250 and 750 ms.
    expect(h.writes).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(4_749);
    expect(h.writes).toHaveLength(7);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(h.writes).toHaveLength(8);
    expect(settled).toBeInstanceOf(FdxConnectionStoreError);
    expect(settled).toMatchObject({ reason: "store_error", connectionId: "user-42" });
    expect(calls.revoke).toEqual([set.refreshToken]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.writes).toHaveLength(8);
  });
});

describe("the cache and the storm bounds at their limits", () => {
  it("a cached connection is used for exactly cacheTtlMs", async () => {
    const h = hookedStore();
    const connection = await connect(make(h.store));
    vi.useFakeTimers({ toFake: ["performance"] });
    const connections = make(h.store, { cacheTtlMs: 60_000 });
    const token = connections.token("user-42");
    expect(await token()).toBe(connection.idToken);
    const reads = h.reads;
    vi.advanceTimersByTime(59_999);
    expect(await token()).toBe(connection.idToken);
    expect(h.reads).toBe(reads);
    vi.advanceTimersByTime(1);
    expect(await token()).toBe(connection.idToken);
    expect(h.reads).toBe(reads + 1);
  });

  it("after exactly 30 s a rejection of an unexpired token refreshes again", async () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const connections = make(memoryConnectionStore());
    const connection = await connect(connections);
    const token = connections.token("user-42");
    const before = stats();
    const second = await token({ rejected: connection.idToken, signal: undefined });
    expect(await token({ rejected: second, signal: undefined })).toBe(second);
    vi.advanceTimersByTime(29_999);
    expect(await token({ rejected: second, signal: undefined })).toBe(second);
    expect(stats().refreshes).toBe(before.refreshes + 1);
    vi.advanceTimersByTime(1);
    const third = await token({ rejected: second, signal: undefined });
    expect(third).not.toBe(second);
    expect(stats().refreshes).toBe(before.refreshes + 2);
  });

  it("with no copy in memory (cacheTtlMs 0), a rejection within 30 s hands back the stored token", async () => {
    const connections = make(memoryConnectionStore(), { cacheTtlMs: 0 });
    const connection = await connect(connections);
    const token = connections.token("user-42");
    const before = stats();
    const second = await token({ rejected: connection.idToken, signal: undefined });
    expect(await token({ rejected: second, signal: undefined })).toBe(second);
    expect(stats().refreshes).toBe(before.refreshes + 1);
  });

  it("a rejection within 30 s gets the pair of a refresh that ended after the caller read the store", async () => {
    const h = hookedStore();
    const connections = make(h.store);
    const connection = await connect(connections);
    const token = connections.token("user-42");
    const second = await token({ rejected: connection.idToken, signal: undefined });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let held = false;
    h.afterRead = async () => {
      h.afterRead = undefined;
      held = true;
      await gate;
    };
    // This caller reads the second token, then waits while refresh(id) stores a third.
    const waiting = token({ rejected: second, signal: undefined });
    await until(() => held);
    const third = await connections.refresh("user-42");
    release();
    expect(await waiting).toBe(third.idToken);
  });

  it("keeps the storm bounds of at most cacheSize connections, the oldest out", async () => {
    const connections = make(memoryConnectionStore(), { cacheSize: 1 });
    const a1 = await connect(connections, "a");
    const b1 = await connect(connections, "b");
    const before = stats();
    const a2 = await connections.token("a")({ rejected: a1.idToken, signal: undefined });
    // Within 30 s: a's bound holds even with one slot.
    expect(await connections.token("a")({ rejected: a2, signal: undefined })).toBe(a2);
    expect(stats().refreshes).toBe(before.refreshes + 1);
    await connections.token("b")({ rejected: b1.idToken, signal: undefined });
    // b's bound pushed a's out.
    const a3 = await connections.token("a")({ rejected: a2, signal: undefined });
    expect(a3).not.toBe(a2);
    expect(stats().refreshes).toBe(before.refreshes + 3);
  });

  it("a token expiring this very millisecond is not handed out, and its rejection does not start the 30 s bound", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    await connect(connections, "a");
    await connect(connections, "b");
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    await writeAsOther(store, "a", { expiresAt: Date.now() });
    await writeAsOther(store, "b", { expiresAt: Date.now() });
    const a = (await store.get("a"))!;
    const b = (await store.get("b"))!;
    const before = stats();
    expect(await make(store).token("a")()).not.toBe(a.idToken);
    expect(stats().refreshes).toBe(before.refreshes + 1);
    const other = make(store);
    const b2 = await other.token("b")({ rejected: b.idToken, signal: undefined });
    expect(b2).not.toBe(b.idToken);
    // b2 is unexpired: its rejection refreshes, since the last refresh was of an expired token.
    const b3 = await other.token("b")({ rejected: b2, signal: undefined });
    expect(b3).not.toBe(b2);
    expect(stats().refreshes).toBe(before.refreshes + 3);
  });

  it("a proactive refresh that fails once the token has expired throws instead of handing out the expired token", async () => {
    const connections = make(memoryConnectionStore(), { refreshBeforeMs: 300_000 });
    nearExpiry();
    const connection = await connect(connections);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    idp.override = ({ path }, res) => {
      if (path !== "/token") return false;
      // The IdP answers just as the token expires.
      vi.setSystemTime(connection.expiresAt);
      res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: "temporarily_unavailable" }));
      return true;
    };
    expect(await rejectionOf(connections.token("user-42")())).toMatchObject({ error: "temporarily_unavailable", status: 503 });
  });

  it("a rejection of an older token near refresh time is a proactive refresh: its failure hands out the current token", async () => {
    const connections = make(memoryConnectionStore(), { refreshBeforeMs: 300_000 });
    nearExpiry();
    const connection = await connect(connections);
    answer(503, { error: "temporarily_unavailable" });
    const bodies = idp.bodies.length;
    expect(await connections.token("user-42")({ rejected: "an-older-id-token", signal: undefined })).toBe(connection.idToken);
    expect(idp.bodies.length).toBe(bodies + 1);
  });

  it("a proactive call that found another process's lease does not hold back the next refresh", async () => {
    const store = memoryConnectionStore();
    const connections = make(store, { refreshBeforeMs: 300_000 });
    nearExpiry();
    const connection = await connect(connections);
    idp.idTokenTtlS = 3600;
    await writeAsOther(store, "user-42", { lease: { owner: "other-host", until: Date.now() + 30_000 } });
    const before = stats();
    expect(await connections.token("user-42")()).toBe(connection.idToken);
    expect(stats().refreshes).toBe(before.refreshes);
    // The other host gave up without a new pair.
    await writeAsOther(store, "user-42", { lease: undefined });
    const fresh = await connections.token("user-42")();
    expect(fresh).not.toBe(connection.idToken);
    expect(stats().refreshes).toBe(before.refreshes + 1);
  });

  it("a signal aborted before the call: FdxAbortError carrying the signal's reason", async () => {
    const connections = make(memoryConnectionStore());
    await connect(connections);
    const controller = new AbortController();
    const reason = new Error("user left");
    controller.abort(reason);
    const error = await rejectionOf(connections.token("user-42")({ rejected: undefined, signal: controller.signal }));
    expect(error).toBeInstanceOf(FdxAbortError);
    expect((error as FdxAbortError).cause).toBe(reason);
  });
});

describe("leases this process left", () => {
  it("a refresh that failed leaves the lease to a process that took it meanwhile", async () => {
    const h = hookedStore();
    const connections = make(h.store);
    const connection = await connect(connections);
    answer(500, { error: "server_error" });
    h.beforeWrite = async (id, _e, next) => {
      if (next.lease) return;
      h.beforeWrite = undefined;
      await writeAsOther(h.inner, id, { lease: { owner: "other-host", until: Date.now() + 30_000 } });
    };
    expect(await rejectionOf(connections.token("user-42")({ rejected: connection.idToken, signal: undefined }))).toMatchObject({ error: "server_error" });
    expect((await h.inner.get("user-42"))!.lease!.owner).toBe("other-host");
  });

  it("clearing the lease after a failed refresh is tried 3 times when other writes keep overtaking it", async () => {
    const h = hookedStore();
    const connections = make(h.store);
    const connection = await connect(connections);
    answer(500, { error: "server_error" });
    let clears = 0;
    h.beforeWrite = async (id, _e, next) => {
      if (next.lease) return;
      // Another process keeps updating the row (our lease stays on it).
      if (++clears <= 5) await writeAsOther(h.inner, id, { accounts: [`changed-${clears}`] });
    };
    expect(await rejectionOf(connections.token("user-42")({ rejected: connection.idToken, signal: undefined }))).toMatchObject({ error: "server_error" });
    expect(clears).toBe(3);
    const owner = (await h.inner.get("user-42"))!.lease!.owner;
    expect(owner).not.toBe("other-host");
  });

  it("this process's own leftover lease is taken at once, without waiting for it to expire", async () => {
    const h = hookedStore();
    const connections = make(h.store, { leaseMs: 2_000 });
    const connection = await connect(connections);
    answer(500, { error: "server_error" });
    h.beforeWrite = (_id, _e, next) => {
      if (!next.lease) throw new Error("store down");
    };
    await rejectionOf(connections.refresh("user-42"));
    expect((await h.inner.get("user-42"))!.lease).toBeDefined();
    h.beforeWrite = undefined;
    idp.override = undefined;
    const reads = h.reads;
    const fresh = await connections.refresh("user-42");
    expect(fresh.idToken).not.toBe(connection.idToken);
    // Its own read and the lease's: no polling.
    expect(h.reads - reads).toBe(2);
  });
});

describe("refresh(id) and other processes", () => {
  it("a connection deleted and authorized anew elsewhere is used from then on, whatever the versions", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    await connect(connections);
    await connections.refresh("user-42");
    const latest = await connections.refresh("user-42");
    // Another process: deleted, then a new authorization (version 1 again, a later createdAt).
    await store.delete("user-42");
    await new Promise((r) => setTimeout(r, 2));
    const anew = await connect(make(store));
    expect(anew.version).toBeLessThan(latest.version);
    const token = connections.token("user-42");
    expect(await token({ rejected: latest.idToken, signal: undefined })).toBe(anew.idToken);
    expect(await token()).toBe(anew.idToken);
  });

  it("refresh(id) joining a proactive call that found another process's lease waits for that process's pair", async () => {
    const h = hookedStore();
    const connections = make(h.store, { refreshBeforeMs: 300_000, leaseMs: 1_000 });
    nearExpiry();
    const connection = await connect(connections);
    await writeAsOther(h.inner, "user-42", { lease: { owner: "other-host", until: Date.now() + 30_000 } });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let n = 0;
    h.afterRead = async () => {
      // The proactive flight's own read of the row: held until refresh(id) has joined it.
      if (++n === 2) await gate;
    };
    const proactive = connections.token("user-42")();
    await until(() => n === 2);
    const before = stats();
    let settled = false;
    const refreshing = connections.refresh("user-42").finally(() => (settled = true));
    await until(() => n === 3);
    await new Promise((r) => setTimeout(r, 20));
    release();
    expect(await proactive).toBe(connection.idToken);
    // refresh(id) now waits for the other process.
    await until(() => settled || n > 5);
    await writeAsOther(h.inner, "user-42", { lease: undefined, idToken: "from-the-other-host", expiresAt: Date.now() + 3_600_000 });
    expect((await refreshing).idToken).toBe("from-the-other-host");
    expect(stats().refreshes).toBe(before.refreshes);
  });

  it("a pair another process stored that is itself due for refresh is refreshed, not handed out", async () => {
    const h = hookedStore();
    const connections = make(h.store, { refreshBeforeMs: 300_000 });
    await connect(connections);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    h.afterRead = async (id) => {
      h.afterRead = undefined;
      // Due this very millisecond.
      await writeAsOther(h.inner, id, { idToken: "due-for-refresh", expiresAt: Date.now() + 300_000 });
    };
    const before = stats();
    const fresh = await connections.refresh("user-42");
    expect(fresh.idToken).not.toBe("due-for-refresh");
    expect(stats().refreshes).toBe(before.refreshes + 1);
  });
});

describe("a proactive call and another process's lease", () => {
  const setUp = async () => {
    const h = hookedStore();
    const connections = make(h.store, { refreshBeforeMs: 300_000, leaseMs: 1_000 });
    nearExpiry();
    const connection = await connect(connections);
    return { h, connections, connection };
  };

  it("waits for the lease when the pair on the row is not the one it read and is due as well", async () => {
    const { h, connections } = await setUp();
    h.afterRead = async (id) => {
      h.afterRead = undefined;
      await writeAsOther(h.inner, id, { idToken: "due-as-well", lease: { owner: "other-host", until: Date.now() + 30_000 } });
    };
    const before = stats();
    const reads = h.reads;
    let settled = false;
    const waiting = connections
      .token("user-42")()
      .finally(() => (settled = true));
    await until(() => settled || h.reads > reads + 3);
    await writeAsOther(h.inner, "user-42", { idToken: "fresh-from-the-other-host", expiresAt: Date.now() + 3_600_000, lease: undefined });
    expect(await waiting).toBe("fresh-from-the-other-host");
    expect(stats().refreshes).toBe(before.refreshes);
  });

  it("waits for the lease once the token it read has expired meanwhile", async () => {
    const { h, connections, connection } = await setUp();
    await writeAsOther(h.inner, "user-42", { lease: { owner: "other-host", until: Date.now() + 30_000 } });
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    let n = 0;
    h.afterRead = () => {
      // The flight's own read of the row: the token expires just then.
      if (++n === 2) vi.setSystemTime(connection.expiresAt);
    };
    const before = stats();
    const reads = h.reads;
    let settled = false;
    const waiting = connections
      .token("user-42")()
      .finally(() => (settled = true));
    await until(() => settled || h.reads > reads + 3);
    await writeAsOther(h.inner, "user-42", { idToken: "fresh-from-the-other-host", expiresAt: Date.now() + 3_600_000, lease: undefined });
    expect(await waiting).toBe("fresh-from-the-other-host");
    expect(stats().refreshes).toBe(before.refreshes);
  });
});

describe("refusals and what they end", () => {
  const refusal =
    (change: (store: ConnectionStore) => Promise<unknown>, error = "invalid_grant") =>
    (store: ConnectionStore) => {
      idp.override = async ({ path }, res) => {
        if (path !== "/token") return false;
        await change(store);
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error }));
        return true;
      };
    };

  it("invalid_grant for a row deleted meanwhile: not_found, nothing written back", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    const connection = await connect(connections);
    refusal((s) => s.delete("user-42"))(store);
    const error = await rejectionOf(connections.token("user-42")({ rejected: connection.idToken, signal: undefined }));
    expect(error).toBeInstanceOf(FdxReauthorizationRequiredError);
    expect(error).toMatchObject({ reason: "not_found", connectionId: "user-42" });
    expect(await store.get("user-42")).toBeUndefined();
  });

  it("invalid_grant for a row revoked meanwhile (its tokens left in place): it stays revoked", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    const connection = await connect(connections);
    refusal((s) => writeAsOther(s, "user-42", { status: "revoked", lease: undefined }))(store);
    const error = await rejectionOf(connections.token("user-42")({ rejected: connection.idToken, signal: undefined }));
    expect(error).toMatchObject({ reason: "revoked" });
    expect(await store.get("user-42")).toMatchObject({ status: "revoked" });
  });

  it("invalid_grant for a row created anew meanwhile (same refresh token): the new row is used, not ended", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    const connection = await connect(connections);
    refusal((s) =>
      writeAsOther(s, "user-42", { createdAt: connection.createdAt + 1, idToken: "recreated-id-token", expiresAt: Date.now() + 3_600_000, lease: undefined }),
    )(store);
    expect(await connections.token("user-42")({ rejected: connection.idToken, signal: undefined })).toBe("recreated-id-token");
    expect(await store.get("user-42")).toMatchObject({ status: "active", idToken: "recreated-id-token" });
  });

  it("invalid_request after another process rotated the pair under this one's lease: the lease is cleared", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    const connection = await connect(connections);
    refusal(
      (s) => writeAsOther(s, "user-42", { idToken: "rotated-elsewhere", refreshToken: "rt-elsewhere", expiresAt: Date.now() + 3_600_000 }),
      "invalid_request",
    )(store);
    expect(await connections.token("user-42")({ rejected: connection.idToken, signal: undefined })).toBe("rotated-elsewhere");
    expect(await store.get("user-42")).toMatchObject({ status: "active", refreshToken: "rt-elsewhere", lease: undefined });
  });

  it("only the IdP's own invalid_grant ends a connection, not a local error or a foreign error with the same code", async () => {
    for (const thrown of [
      new FdxAuthError({ error: "invalid_grant", errorDescription: "checked locally" }),
      Object.assign(new Error("from a custom client"), { error: "invalid_grant", status: 400 }),
    ]) {
      const store = memoryConnectionStore();
      const connection = await connect(make(store));
      const refusing: AuthClient = { ...auth, refresh: () => Promise.reject(thrown) };
      const connections = createConnections({ auth: refusing, store, refreshBeforeMs: 0 });
      expect(await rejectionOf(connections.token("user-42")({ rejected: connection.idToken, signal: undefined }))).toBe(thrown);
      expect(await store.get("user-42")).toMatchObject({ status: "active", refreshToken: connection.refreshToken, lease: undefined });
    }
  });
});

describe("stored rows this process must not use", () => {
  it("a row with any of its tokens sealed by encryptConnectionStore is refused, naming the fix", async () => {
    const sealed = "fdxenc.v1.k1.aaaa.bbbb";
    for (const patch of [{ refreshToken: sealed }, { idToken: sealed }, { accessToken: sealed }]) {
      const store = memoryConnectionStore();
      await connect(make(store));
      await writeAsOther(store, "user-42", patch);
      const error = await rejectionOf(make(store).get("user-42"));
      expect(error).toBeInstanceOf(FdxConnectionStoreError);
      expect(error).toMatchObject({
        reason: "undecryptable",
        connectionId: "user-42",
        message: 'Connection "user-42" holds encrypted tokens: read the store through encryptConnectionStore with its keys',
      });
    }
  });

  it("revoke(id) of a revoked row sends nothing, even when a token was left on it", async () => {
    const store = memoryConnectionStore();
    const connections = make(store);
    await connect(connections);
    await writeAsOther(store, "user-42", { status: "revoked", idToken: "" });
    const row = await store.get("user-42");
    const before = stats();
    await connections.revoke("user-42");
    expect(stats().revocations).toBe(before.revocations);
    expect(await store.get("user-42")).toEqual(row);
  });

  it("complete() whose write lost to a row deleted meanwhile writes a new one", async () => {
    const h = hookedStore();
    const connections = make(h.store);
    const other = await connect(make(memoryConnectionStore()));
    h.beforeWrite = async (id) => {
      h.beforeWrite = undefined;
      // Another process creates the row, and deletes it before this one reads it back.
      expect(await h.inner.compareAndSet(id, 0, other)).toBe(true);
      h.beforeRead = async () => {
        h.beforeRead = undefined;
        await h.inner.delete(id);
      };
    };
    const created = await connect(connections);
    expect(created).toMatchObject({ status: "active", version: 1 });
    expect(await h.inner.get("user-42")).toMatchObject({ refreshToken: created.refreshToken });
  });
});
