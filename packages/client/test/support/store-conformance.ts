// The contract every ConnectionStore keeps (DESIGN.md §10), as the one
// reusable vitest suite: run here on the memory store and the encrypted
// wrapper, and by @fdxkit/postgres (importing this file by path) on PGlite, a
// real PostgreSQL server and the encrypted wrapper over that server. It
// imports only the public types, so it can be imported by path from anywhere.
import { describe, expect, it } from "vitest";
import type { Connection, ConnectionStore } from "../../src/auth/types.js";

/** A valid connection row for the suite, version 1; `overrides` win. */
export function sampleConnection(id: string, overrides: Partial<Connection> = {}): Connection {
  return {
    id,
    status: "active",
    idToken: `id-token-of-${id}`,
    refreshToken: `refresh-token-of-${id}`,
    expiresAt: 1_900_000_000_000,
    accessToken: "",
    accessTokenExpiresAt: 0,
    accounts: ["acct-1", "acct-2"],
    subject: `sub-${id}`,
    connector: "mikomo",
    consentId: `consent-${id}`,
    issuer: "/sandbox",
    clientId: "client-1",
    createdAt: 1_800_000_000_000,
    updatedAt: 1_800_000_000_000,
    version: 1,
    lease: undefined,
    ...overrides,
  };
}

async function collect(store: ConnectionStore): Promise<Connection[]> {
  const all: Connection[] = [];
  for await (const row of store.list()) all.push(row);
  return all;
}

/**
 * Registers the store contract's tests under `describe(name)`. `makeStore`
 * gives a new, empty store for each test (it may be async); `skip` skips
 * them all (a store whose server is not there). Rows are compared with
 * `toEqual`, so a store may drop an undefined `lease`, `connector` or
 * `consentId` or keep it.
 */
export function describeConnectionStore(name: string, makeStore: () => ConnectionStore | Promise<ConnectionStore>, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip)(`ConnectionStore contract: ${name}`, () => {
    it("get of an unknown id is undefined; compareAndSet with 0 creates, and get reads back what it wrote", async () => {
      const store = await makeStore();
      expect(await store.get("nobody")).toBeUndefined();
      const row = sampleConnection("a");
      expect(await store.compareAndSet("a", 0, row)).toBe(true);
      expect(await store.get("a")).toEqual(row);
      expect(await store.get("nobody")).toBeUndefined();
    });

    it("refuses expectedVersion 0 when a row exists, keeping the row", async () => {
      const store = await makeStore();
      await store.compareAndSet("a", 0, sampleConnection("a"));
      expect(await store.compareAndSet("a", 0, sampleConnection("a", { idToken: "other" }))).toBe(false);
      expect(await store.get("a")).toEqual(sampleConnection("a"));
    });

    it("never creates a row with an expectedVersion above 0", async () => {
      const store = await makeStore();
      expect(await store.compareAndSet("ghost", 1, sampleConnection("ghost", { version: 2 }))).toBe(false);
      expect(await store.compareAndSet("ghost", 7, sampleConnection("ghost", { version: 8 }))).toBe(false);
      expect(await store.get("ghost")).toBeUndefined();
      expect(await collect(store)).toEqual([]);
    });

    it("writes only on the stored version (a stale or future one is refused), and keeps every field", async () => {
      const store = await makeStore();
      await store.compareAndSet("c", 0, sampleConnection("c"));
      const v2 = sampleConnection("c", {
        version: 2,
        idToken: "id-2",
        refreshToken: "rt-2",
        lease: { owner: "me", until: 123 },
        connector: undefined,
        consentId: undefined,
        accounts: [],
        updatedAt: 1_800_000_000_001,
      });
      expect(await store.compareAndSet("c", 2, { ...v2, version: 3 })).toBe(false);
      expect(await store.compareAndSet("c", 5, { ...v2, version: 6, idToken: "future" })).toBe(false);
      expect(await store.compareAndSet("c", 1, v2)).toBe(true);
      expect(await store.get("c")).toEqual(v2);
      expect(await store.compareAndSet("c", 1, { ...v2, version: 2, idToken: "stale" })).toBe(false);
      expect(await store.get("c")).toEqual(v2);
      const v3 = { ...v2, version: 3, lease: undefined, status: "revoked" as const, idToken: "", refreshToken: "" };
      expect(await store.compareAndSet("c", 2, v3)).toBe(true);
      expect(await store.get("c")).toEqual(v3);
    });

    it("of 20 concurrent creators exactly one wins, and its row is kept", async () => {
      const store = await makeStore();
      const attempts = Array.from({ length: 20 }, (_, i) => sampleConnection("new", { refreshToken: `creator-${i}` }));
      const results = await Promise.all(attempts.map((next) => store.compareAndSet("new", 0, next)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.get("new")).toEqual(attempts[results.indexOf(true)]);
    });

    it("of 20 concurrent writers of one version exactly one wins, and its row is kept", async () => {
      const store = await makeStore();
      await store.compareAndSet("d", 0, sampleConnection("d"));
      const attempts = Array.from({ length: 20 }, (_, i) => sampleConnection("d", { version: 2, idToken: `writer-${i}` }));
      const results = await Promise.all(attempts.map((next) => store.compareAndSet("d", 1, next)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.get("d")).toEqual(attempts[results.indexOf(true)]);
    });

    it("a returned row is a copy: changing it, or the row written, changes nothing stored", async () => {
      const store = await makeStore();
      const row = sampleConnection("e", { lease: { owner: "o", until: 1 } });
      await store.compareAndSet("e", 0, row);
      row.accounts.push("mutated");
      row.lease!.until = 2;
      const read = (await store.get("e"))!;
      read.accounts.push("mutated too");
      read.idToken = "changed";
      expect(await store.get("e")).toEqual(sampleConnection("e", { lease: { owner: "o", until: 1 } }));
      const listed = (await collect(store))[0]!;
      listed.accounts.length = 0;
      expect((await store.get("e"))!.accounts).toEqual(["acct-1", "acct-2"]);
    });

    it("deletes (a missing id is no error); then a version above 0 does not recreate it and version 0 does", async () => {
      const store = await makeStore();
      await store.compareAndSet("a", 0, sampleConnection("a"));
      await store.compareAndSet("b", 0, sampleConnection("b"));
      await store.delete("a");
      await store.delete("a");
      await store.delete("never-there");
      expect(await store.get("a")).toBeUndefined();
      expect((await collect(store)).map((c) => c.id)).toEqual(["b"]);
      expect(await store.compareAndSet("a", 1, sampleConnection("a", { version: 2 }))).toBe(false);
      expect(await store.compareAndSet("a", 0, sampleConnection("a"))).toBe(true);
      expect(await store.get("a")).toEqual(sampleConnection("a"));
    });

    it("lists 2,500 connections, each once (across pages where the store pages)", async () => {
      const store = await makeStore();
      const ids = Array.from({ length: 2_500 }, (_, i) => `user-${String(i).padStart(5, "0")}`);
      for (let i = 0; i < ids.length; i += 100) {
        await Promise.all(ids.slice(i, i + 100).map((id) => store.compareAndSet(id, 0, sampleConnection(id))));
      }
      const listed = await collect(store);
      expect(listed).toHaveLength(2_500);
      expect(new Set(listed.map((c) => c.id))).toEqual(new Set(ids));
      expect(listed.find((c) => c.id === "user-01234")).toEqual(sampleConnection("user-01234"));
    });

    it("finds a connection by its consent id, as the row is now (when the store has findByConsentId)", async () => {
      const store = await makeStore();
      if (!store.findByConsentId) return;
      await store.compareAndSet("a", 0, sampleConnection("a", { consentId: "consent-x" }));
      await store.compareAndSet("b", 0, sampleConnection("b", { consentId: "consent-y" }));
      await store.compareAndSet("c", 0, sampleConnection("c", { consentId: undefined }));
      expect((await store.findByConsentId("consent-y"))?.id).toBe("b");
      expect(await store.findByConsentId("consent-x")).toEqual(sampleConnection("a", { consentId: "consent-x" }));
      expect(await store.findByConsentId("consent-none")).toBeUndefined();
      await store.compareAndSet("b", 1, sampleConnection("b", { version: 2, consentId: "consent-z" }));
      expect(await store.findByConsentId("consent-y")).toBeUndefined();
      expect((await store.findByConsentId("consent-z"))?.version).toBe(2);
    });

    it("treats hostile ids and values as data: quotes, SQL, LIKE wildcards, unicode, control characters, the empty id", async () => {
      const store = await makeStore();
      const hostile = [
        "o'brien",
        'say "hi"',
        "'; DROP TABLE fdxkit_connections; --",
        `Robert"); DROP TABLE students;--`,
        "a'b\"c`d\\e",
        "a%_b\\c",
        "%_*",
        "ünï✓ 🏦",
        "ユーザー🙂",
        " leading and trailing ",
        "line\nbreak\ttab",
        "x\u0001y",
        "$1",
        "",
      ];
      const rowOf = (id: string) => sampleConnection(id, { consentId: `${id}-consent`, accounts: [id], subject: id });
      for (const id of hostile) expect(await store.compareAndSet(id, 0, rowOf(id))).toBe(true);
      for (const id of hostile) expect(await store.get(id)).toEqual(rowOf(id));
      expect(await store.get("%")).toBeUndefined();
      expect(await store.get("o'brien'")).toBeUndefined();
      if (store.findByConsentId) {
        expect((await store.findByConsentId(`${hostile[2]}-consent`))?.id).toBe(hostile[2]);
        expect(await store.findByConsentId("%")).toBeUndefined();
      }
      expect(new Set((await collect(store)).map((c) => c.id))).toEqual(new Set(hostile));
      await store.delete(hostile[2]!);
      expect(await store.get(hostile[2]!)).toBeUndefined();
      expect(await collect(store)).toHaveLength(hostile.length - 1);
    });

    it("round-trips a lease, and clears it", async () => {
      const store = await makeStore();
      await store.compareAndSet("a", 0, sampleConnection("a"));
      const leased = sampleConnection("a", { version: 2, lease: { owner: "manager-7f3a", until: 1_800_000_030_000 } });
      expect(await store.compareAndSet("a", 1, leased)).toBe(true);
      expect(await store.get("a")).toEqual(leased);
      expect((await store.get("a"))?.lease).toEqual({ owner: "manager-7f3a", until: 1_800_000_030_000 });
      expect(await store.compareAndSet("a", 2, sampleConnection("a", { version: 3, lease: undefined }))).toBe(true);
      expect((await store.get("a"))?.lease).toBeUndefined();
    });

    it("round-trips an undefined connector and consent id, empty strings and empty accounts", async () => {
      const store = await makeStore();
      const bare = sampleConnection("a", { connector: undefined, consentId: undefined, accounts: [] });
      await store.compareAndSet("a", 0, bare);
      const read = await store.get("a");
      expect(read).toEqual(bare);
      expect(read?.connector).toBeUndefined();
      expect(read?.consentId).toBeUndefined();
      expect(read?.accounts).toEqual([]);
      const empty = sampleConnection("b", { connector: "", consentId: "", status: "reauthorization_required", idToken: "", refreshToken: "" });
      await store.compareAndSet("b", 0, empty);
      expect(await store.get("b")).toEqual(empty);
    });

    it("round-trips the access token and its expiry, replaces them on the next write, and erases them", async () => {
      const store = await makeStore();
      const first = sampleConnection("a", { accessToken: "access-token-of-a", accessTokenExpiresAt: 1_900_000_000_000 });
      await store.compareAndSet("a", 0, first);
      expect(await store.get("a")).toEqual(first);
      // A refresh gives a new access token; an odd one (quotes, unicode, long) and a fractional time come back as given.
      const refreshed = sampleConnection("a", { version: 2, accessToken: `at-'"\\🙂-${"x".repeat(5_000)}`, accessTokenExpiresAt: 1_900_000_000_123.25 });
      expect(await store.compareAndSet("a", 1, refreshed)).toBe(true);
      expect(await store.get("a")).toEqual(refreshed);
      const revoked = { ...refreshed, version: 3, status: "revoked" as const, idToken: "", refreshToken: "", accessToken: "", accessTokenExpiresAt: 0 };
      expect(await store.compareAndSet("a", 2, revoked)).toBe(true);
      expect(await store.get("a")).toEqual(revoked);
      if (store.findByConsentId) expect(await store.findByConsentId("consent-a")).toEqual(revoked);
    });

    it('reads a connection written without accessToken (code older than the field) back with "" and 0', async () => {
      const store = await makeStore();
      const { accessToken: _token, accessTokenExpiresAt: _expiry, ...older } = sampleConnection("a");
      expect(await store.compareAndSet("a", 0, older as Connection)).toBe(true);
      expect(await store.get("a")).toEqual(sampleConnection("a", { accessToken: "", accessTokenExpiresAt: 0 }));
      const [listed] = await collect(store);
      expect(listed).toMatchObject({ accessToken: "", accessTokenExpiresAt: 0 });
    });

    it("round-trips values as given: unicode, quotes, a long token, many accounts, large and fractional times", async () => {
      const store = await makeStore();
      const odd = sampleConnection("a", {
        idToken: "eyJ'\"\\🙂.x.y",
        refreshToken: "r".repeat(10_000),
        accounts: Array.from({ length: 300 }, (_, i) => `acc-'${i}"`),
        subject: "sub with 'quotes' and ユニコード",
        expiresAt: Number.MAX_SAFE_INTEGER,
        createdAt: 0,
        // A JWT's exp may have a fraction of a second (RFC 7519 NumericDate).
        updatedAt: 1_700_000_000_123.457,
        lease: { owner: "o", until: -1.5e-7 },
      });
      await store.compareAndSet("a", 0, odd);
      expect(await store.get("a")).toEqual(odd);
    });
  });
}
