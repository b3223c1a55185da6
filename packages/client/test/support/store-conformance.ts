// The contract every ConnectionStore keeps (DESIGN.md §10), as a reusable
// vitest suite: run it on the memory store, the encrypted wrapper, and any
// durable store (PostgreSQL runs it from its own package). It imports only
// the public types, so it can be imported by path from anywhere.
import { describe, expect, it } from "vitest";
import type { Connection, ConnectionStore } from "../../src/auth/types.js";

/** A valid connection row for the suite; `overrides` win. */
export function sampleConnection(id: string, overrides: Partial<Connection> = {}): Connection {
  return {
    id,
    status: "active",
    idToken: `id-token-of-${id}`,
    refreshToken: `refresh-token-of-${id}`,
    expiresAt: 1_900_000_000_000,
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

/** Compares what matters of a row (a store may drop an undefined `lease` or keep it). */
const normal = (row: Connection | undefined) => row && { ...row, lease: row.lease ?? undefined };

/**
 * Registers the store contract's tests under `describe(name)`. `makeStore`
 * gives a new, empty store for each test (it may be async).
 */
export function describeConnectionStore(name: string, makeStore: () => ConnectionStore | Promise<ConnectionStore>): void {
  describe(`ConnectionStore contract: ${name}`, () => {
    it("get of an unknown id is undefined", async () => {
      const store = await makeStore();
      expect(await store.get("nobody")).toBeUndefined();
    });

    it("compareAndSet with 0 creates; a second create of the same id loses", async () => {
      const store = await makeStore();
      const row = sampleConnection("a");
      expect(await store.compareAndSet("a", 0, row)).toBe(true);
      expect(normal(await store.get("a"))).toEqual(row);
      expect(await store.compareAndSet("a", 0, sampleConnection("a", { idToken: "other" }))).toBe(false);
      expect((await store.get("a"))!.idToken).toBe(row.idToken);
    });

    it("a version above 0 never creates a row", async () => {
      const store = await makeStore();
      expect(await store.compareAndSet("b", 1, sampleConnection("b", { version: 2 }))).toBe(false);
      expect(await store.get("b")).toBeUndefined();
    });

    it("writes only on the expected version, and keeps every field", async () => {
      const store = await makeStore();
      await store.compareAndSet("c", 0, sampleConnection("c"));
      const next = sampleConnection("c", { version: 2, idToken: "id-2", refreshToken: "rt-2", lease: { owner: "me", until: 123 }, connector: undefined, consentId: undefined, accounts: [] });
      expect(await store.compareAndSet("c", 2, { ...next, version: 3 })).toBe(false);
      expect(await store.compareAndSet("c", 1, next)).toBe(true);
      expect(normal(await store.get("c"))).toEqual(next);
      expect(await store.compareAndSet("c", 1, { ...next, version: 2 })).toBe(false);
      const cleared = { ...next, version: 3, lease: undefined, status: "revoked" as const, idToken: "", refreshToken: "" };
      expect(await store.compareAndSet("c", 2, cleared)).toBe(true);
      expect(normal(await store.get("c"))).toEqual(cleared);
    });

    it("of many concurrent compareAndSets on one version exactly one wins", async () => {
      const store = await makeStore();
      const creates = await Promise.all(Array.from({ length: 20 }, (_, i) => store.compareAndSet("d", 0, sampleConnection("d", { idToken: `t${i}` }))));
      expect(creates.filter(Boolean)).toHaveLength(1);
      const updates = await Promise.all(Array.from({ length: 20 }, (_, i) => store.compareAndSet("d", 1, sampleConnection("d", { version: 2, idToken: `u${i}` }))));
      expect(updates.filter(Boolean)).toHaveLength(1);
      const winner = updates.indexOf(true);
      expect((await store.get("d"))!.idToken).toBe(`u${winner}`);
    });

    it("a returned row is a copy: changing it changes nothing stored", async () => {
      const store = await makeStore();
      const row = sampleConnection("e");
      await store.compareAndSet("e", 0, row);
      row.accounts.push("mutated");
      const read = (await store.get("e"))!;
      read.accounts.push("mutated too");
      read.idToken = "changed";
      expect(normal(await store.get("e"))).toEqual(sampleConnection("e"));
    });

    it("delete removes the row (and deleting a missing one is no error); the id can be created again", async () => {
      const store = await makeStore();
      await store.compareAndSet("f", 0, sampleConnection("f"));
      await store.delete("f");
      await store.delete("f");
      expect(await store.get("f")).toBeUndefined();
      expect(await store.compareAndSet("f", 0, sampleConnection("f"))).toBe(true);
    });

    it("list yields every row, many of them", async () => {
      const store = await makeStore();
      const ids = Array.from({ length: 120 }, (_, i) => `user-${i}`);
      for (const id of ids) await store.compareAndSet(id, 0, sampleConnection(id));
      const seen: string[] = [];
      for await (const row of store.list()) seen.push(row.id);
      expect(seen.sort()).toEqual([...ids].sort());
    });

    it("findByConsentId finds the row of a consent (when the store has it)", async () => {
      const store = await makeStore();
      if (!store.findByConsentId) return;
      await store.compareAndSet("g", 0, sampleConnection("g", { consentId: "consent-x" }));
      await store.compareAndSet("h", 0, sampleConnection("h", { consentId: "consent-y" }));
      expect((await store.findByConsentId("consent-y"))?.id).toBe("h");
      expect(await store.findByConsentId("consent-z")).toBeUndefined();
    });

    it("ids and values with quotes, unicode and SQL-ish text are data", async () => {
      const store = await makeStore();
      const ids = ["o'brien", 'say "hi"', "'; DROP TABLE fdxkit_connections; --", "ünï✓ 🏦", "a%_b\\c", "x\u0000y".replace("\u0000", "\u0001")];
      for (const id of ids) {
        const row = sampleConnection(id, { consentId: `${id}-consent`, accounts: [id], subject: id });
        expect(await store.compareAndSet(id, 0, row)).toBe(true);
        expect(normal(await store.get(id))).toEqual(row);
      }
      expect(await store.get("%")).toBeUndefined();
      expect(await store.get("o'brien'")).toBeUndefined();
      if (store.findByConsentId) expect((await store.findByConsentId(`${ids[2]}-consent`))?.id).toBe(ids[2]);
      const listed: string[] = [];
      for await (const row of store.list()) listed.push(row.id);
      expect(listed.sort()).toEqual([...ids].sort());
    });
  });
}
