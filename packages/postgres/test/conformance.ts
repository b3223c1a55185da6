// The ConnectionStore contract (DESIGN.md §10), as one suite any store can be
// run through: `describeConnectionStore(name, makeStore)`. makeStore gives a
// new, empty store for each test.
//
// The client's packages/client/test/support/store-conformance.ts (written on
// the auth branch) is the same idea for the memory and encrypted stores; the
// two are to be unified at merge.
import { describe, expect, it } from "vitest";
import type { Connection, ConnectionStore } from "../src/index.js";
import { connection } from "./support.js";

async function collect(store: ConnectionStore): Promise<Connection[]> {
  const all: Connection[] = [];
  for await (const c of store.list()) all.push(c);
  return all;
}

/** Runs the ConnectionStore contract against stores made by `makeStore` (a fresh, empty one per test). */
export function describeConnectionStore(name: string, makeStore: () => Promise<ConnectionStore>, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip)(`ConnectionStore conformance: ${name}`, () => {
    it("creates with expectedVersion 0, and reads back what it wrote", async () => {
      const store = await makeStore();
      expect(await store.get("a")).toBeUndefined();
      expect(await store.compareAndSet("a", 0, connection("a"))).toBe(true);
      expect(await store.get("a")).toEqual(connection("a"));
    });

    it("refuses expectedVersion 0 when a row exists, keeping the row", async () => {
      const store = await makeStore();
      await store.compareAndSet("a", 0, connection("a"));
      expect(await store.compareAndSet("a", 0, connection("a", { idToken: "other" }))).toBe(false);
      expect((await store.get("a"))?.idToken).toBe(connection("a").idToken);
    });

    it("never creates a row with an expectedVersion above 0", async () => {
      const store = await makeStore();
      expect(await store.compareAndSet("ghost", 1, connection("ghost", { version: 2 }))).toBe(false);
      expect(await store.compareAndSet("ghost", 7, connection("ghost", { version: 8 }))).toBe(false);
      expect(await store.get("ghost")).toBeUndefined();
      expect(await collect(store)).toEqual([]);
    });

    it("writes only on the stored version: a stale or future version is refused", async () => {
      const store = await makeStore();
      await store.compareAndSet("a", 0, connection("a"));
      const v2 = connection("a", { version: 2, idToken: "second", updatedAt: 1_800_000_000_001 });
      expect(await store.compareAndSet("a", 1, v2)).toBe(true);
      expect(await store.compareAndSet("a", 1, connection("a", { version: 2, idToken: "stale" }))).toBe(false);
      expect(await store.compareAndSet("a", 5, connection("a", { version: 6, idToken: "future" }))).toBe(false);
      expect(await store.get("a")).toEqual(v2);
      const v3 = connection("a", { version: 3, status: "revoked", idToken: "", refreshToken: "" });
      expect(await store.compareAndSet("a", 2, v3)).toBe(true);
      expect(await store.get("a")).toEqual(v3);
    });

    it("lets exactly one of 20 concurrent writers of one version win, and keeps the winner's row", async () => {
      const store = await makeStore();
      await store.compareAndSet("a", 0, connection("a"));
      const attempts = Array.from({ length: 20 }, (_, i) => connection("a", { version: 2, idToken: `writer-${i}` }));
      const results = await Promise.all(attempts.map((next) => store.compareAndSet("a", 1, next)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.get("a")).toEqual(attempts[results.indexOf(true)]);
    });

    it("lets exactly one of 20 concurrent creators win", async () => {
      const store = await makeStore();
      const attempts = Array.from({ length: 20 }, (_, i) => connection("new", { refreshToken: `creator-${i}` }));
      const results = await Promise.all(attempts.map((next) => store.compareAndSet("new", 0, next)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.get("new")).toEqual(attempts[results.indexOf(true)]);
    });

    it("deletes (a missing id is no error), after which version 0 creates again", async () => {
      const store = await makeStore();
      await store.compareAndSet("a", 0, connection("a"));
      await store.compareAndSet("b", 0, connection("b"));
      await store.delete("a");
      await store.delete("never-there");
      expect(await store.get("a")).toBeUndefined();
      expect((await collect(store)).map((c) => c.id)).toEqual(["b"]);
      expect(await store.compareAndSet("a", 1, connection("a", { version: 2 }))).toBe(false);
      expect(await store.compareAndSet("a", 0, connection("a"))).toBe(true);
    });

    it("lists 2,500 connections, each once, across pages", async () => {
      const store = await makeStore();
      const ids = Array.from({ length: 2_500 }, (_, i) => `user-${String(i).padStart(5, "0")}`);
      for (let i = 0; i < ids.length; i += 100) {
        await Promise.all(ids.slice(i, i + 100).map((id) => store.compareAndSet(id, 0, connection(id))));
      }
      const listed = await collect(store);
      expect(listed).toHaveLength(2_500);
      expect(new Set(listed.map((c) => c.id))).toEqual(new Set(ids));
      expect(listed.find((c) => c.id === "user-01234")).toEqual(connection("user-01234"));
    });

    it("finds a connection by its consent id", async () => {
      const store = await makeStore();
      if (!store.findByConsentId) return;
      await store.compareAndSet("a", 0, connection("a", { consentId: "consent-x" }));
      await store.compareAndSet("b", 0, connection("b", { consentId: "consent-y" }));
      await store.compareAndSet("c", 0, connection("c", { consentId: undefined }));
      expect((await store.findByConsentId("consent-y"))?.id).toBe("b");
      expect(await store.findByConsentId("consent-x")).toEqual(connection("a", { consentId: "consent-x" }));
      expect(await store.findByConsentId("consent-none")).toBeUndefined();
      // Revoked and rewritten: it finds the row as it is now.
      await store.compareAndSet("b", 1, connection("b", { version: 2, consentId: "consent-z" }));
      expect(await store.findByConsentId("consent-y")).toBeUndefined();
      expect((await store.findByConsentId("consent-z"))?.version).toBe(2);
    });

    it("treats hostile ids as data", async () => {
      const store = await makeStore();
      const hostile = [
        "'; DROP TABLE fdxkit_connections; --",
        `Robert"); DROP TABLE students;--`,
        "a'b\"c`d\\e",
        "%_*",
        "ユーザー🙂",
        " leading and trailing ",
        "line\nbreak\ttab",
        "$1",
        "",
      ];
      for (const id of hostile) expect(await store.compareAndSet(id, 0, connection(id))).toBe(true);
      for (const id of hostile) expect(await store.get(id)).toEqual(connection(id));
      expect(await store.get("%")).toBeUndefined();
      expect(new Set((await collect(store)).map((c) => c.id))).toEqual(new Set(hostile));
      await store.delete(hostile[0]!);
      expect(await store.get(hostile[0]!)).toBeUndefined();
      expect(await collect(store)).toHaveLength(hostile.length - 1);
    });

    it("round-trips a lease, and clears it", async () => {
      const store = await makeStore();
      await store.compareAndSet("a", 0, connection("a"));
      const leased = connection("a", { version: 2, lease: { owner: "manager-7f3a", until: 1_800_000_030_000 } });
      expect(await store.compareAndSet("a", 1, leased)).toBe(true);
      expect(await store.get("a")).toEqual(leased);
      expect((await store.get("a"))?.lease).toEqual({ owner: "manager-7f3a", until: 1_800_000_030_000 });
      expect(await store.compareAndSet("a", 2, connection("a", { version: 3, lease: undefined }))).toBe(true);
      expect((await store.get("a"))?.lease).toBeUndefined();
    });

    it("round-trips an undefined connector and consent id, empty strings and empty accounts", async () => {
      const store = await makeStore();
      const bare = connection("a", { connector: undefined, consentId: undefined, accounts: [] });
      await store.compareAndSet("a", 0, bare);
      const read = await store.get("a");
      expect(read).toEqual(bare);
      expect(read?.connector).toBeUndefined();
      expect(read?.consentId).toBeUndefined();
      expect(read?.accounts).toEqual([]);
      const empty = connection("b", { connector: "", consentId: "", status: "reauthorization_required", idToken: "", refreshToken: "" });
      await store.compareAndSet("b", 0, empty);
      expect(await store.get("b")).toEqual(empty);
    });

    it("round-trips values as given: unicode, quotes, many accounts, large times", async () => {
      const store = await makeStore();
      const odd = connection("a", {
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
