import { describe, expect, it } from "vitest";
import { SEALED_PREFIX } from "../../src/auth/encrypt-store.js";
import { encryptConnectionStore, FdxConnectionStoreError, memoryConnectionStore, type Connection, type ConnectionStore } from "../../src/auth/index.js";
import { FdxValidationError } from "../../src/index.js";
import { rejectionOf } from "../support/http.js";
import { associatedData, rowBinding } from "../../src/auth/row-binding.js";
import { describeConnectionStore, sampleConnection } from "../support/store-conformance.js";

const key = (fill: number) => Buffer.alloc(32, fill).toString("base64");
const K1 = key(1);
const K2 = key(2);

/**
 * A store the test edits behind the wrapper's back, as someone with write
 * access to the database would: a row is replaced as given, version and all.
 */
function editableStore() {
  const rows = new Map<string, Connection>();
  const store: ConnectionStore = {
    get: async (id) => structuredClone(rows.get(id)),
    async compareAndSet(id, expectedVersion, next) {
      if ((rows.get(id)?.version ?? 0) !== expectedVersion) return false;
      rows.set(id, structuredClone(next));
      return true;
    },
    delete: async (id) => void rows.delete(id),
    async *list() {
      for (const row of [...rows.values()]) yield structuredClone(row);
    },
    async findByConsentId(consentId) {
      for (const row of rows.values()) if (row.consentId === consentId) return structuredClone(row);
      return undefined;
    },
  };
  return {
    store,
    raw: (id: string) => structuredClone(rows.get(id)!),
    edit: (id: string, patch: Partial<Connection>) => void rows.set(id, { ...rows.get(id)!, ...patch }),
    put: (row: Connection) => void rows.set(row.id, structuredClone(row)),
  };
}

// Frozen: a row as the previous release's encryptConnectionStore wrote it
// (envelope format v1, key K1), tokens "legacy-id-token" and
// "legacy-refresh-token". Never regenerate it with the current code.
const LEGACY_ROW: Connection = {
  id: "legacy-user",
  status: "active",
  idToken: "fdxenc.v1.k1.J8KvzLrQF0MSgNOr.5_6Lp_yTYdBKltsFeJUTLK9G8zKJE4aVsfSHM2BnSg",
  refreshToken: "fdxenc.v1.k1.BU-CczHQ41yUdFNV.ZJPtB6mX8loIllp_jLNIeDUkKnj_QQtWwUCr7oEkjMhRnipX",
  expiresAt: 1_900_000_000_000,
  accessToken: "",
  accessTokenExpiresAt: 0,
  accounts: ["acct-1"],
  subject: "sub-legacy",
  connector: "mikomo",
  consentId: "consent-legacy",
  issuer: "/sandbox",
  clientId: "client-1",
  createdAt: 1_800_000_000_000,
  updatedAt: 1_800_000_000_000,
  version: 1,
};

describeConnectionStore("encrypted (AES-256-GCM) over memory", () => encryptConnectionStore(memoryConnectionStore(), { keys: { k1: K1 }, current: "k1" }));
describeConnectionStore("encrypted over a store without findByConsentId", () => {
  const { findByConsentId: _drop, ...inner } = memoryConnectionStore();
  return encryptConnectionStore(inner as ConnectionStore, { keys: { k1: K1 }, current: "k1" });
});

describe("encryptConnectionStore", () => {
  it("stores tokens only as versioned envelopes with the key id; reads them back", async () => {
    const inner = memoryConnectionStore();
    const store = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    const row = sampleConnection("u1", { accessToken: "access-token-of-u1", accessTokenExpiresAt: 1_900_000_000_000 });
    await store.compareAndSet("u1", 0, row);
    const raw = (await inner.get("u1"))!;
    for (const field of ["idToken", "refreshToken", "accessToken"] as const) {
      expect(raw[field]).toMatch(/^fdxenc\.v2\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
      expect(raw[field].startsWith(SEALED_PREFIX)).toBe(true);
      expect(raw[field]).not.toContain(row[field]);
    }
    expect(raw.subject).toBe(row.subject);
    expect(raw.accessTokenExpiresAt).toBe(row.accessTokenExpiresAt);
    expect(await store.get("u1")).toEqual(row);
    // A fresh IV each write: the same token twice is two different envelopes.
    await store.compareAndSet("u1", 1, { ...row, version: 2 });
    expect((await inner.get("u1"))!.idToken).not.toBe(raw.idToken);
  });

  it("seals empty (erased) tokens too, and reads them back empty", async () => {
    const inner = memoryConnectionStore();
    const store = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    const row = sampleConnection("u1", { status: "revoked", idToken: "", refreshToken: "" });
    await store.compareAndSet("u1", 0, row);
    const raw = (await inner.get("u1"))!;
    for (const field of ["idToken", "refreshToken", "accessToken"] as const) expect(raw[field]).toMatch(/^fdxenc\.v2\.k1\./);
    expect(await store.get("u1")).toEqual(row);
  });

  const undecryptable = async (store: ConnectionStore, id: string) => {
    const error = (await rejectionOf(store.get(id))) as FdxConnectionStoreError;
    expect(error).toBeInstanceOf(FdxConnectionStoreError);
    expect(error).toMatchObject({ reason: "undecryptable", connectionId: id });
    return error;
  };

  it("refuses plain text, a tampered value, a value moved to another row or field, and a wrong key", async () => {
    const { store: inner, raw, edit } = editableStore();
    const store = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    await store.compareAndSet("a", 0, sampleConnection("a"));
    await store.compareAndSet("b", 0, sampleConnection("b"));
    const a = raw("a");
    const b = raw("b");

    edit("a", { idToken: "plain-token-value" });
    expect((await undecryptable(store, "a")).message).not.toContain("plain-token-value");
    // One character of the ciphertext changed (to one it is not).
    const flipped = a.idToken.slice(0, -2) + (a.idToken.at(-2) === "A" ? "B" : "A") + a.idToken.slice(-1);
    edit("a", { idToken: flipped });
    await undecryptable(store, "a");
    edit("a", { idToken: b.idToken });
    await undecryptable(store, "a");
    edit("a", { idToken: a.refreshToken, refreshToken: a.idToken });
    await undecryptable(store, "a");
    edit("a", { idToken: a.accessToken, accessToken: a.idToken });
    await undecryptable(store, "a");
    edit("a", { idToken: a.idToken, refreshToken: a.refreshToken, accessToken: a.accessToken });
    expect((await store.get("a"))!.idToken).toBe("id-token-of-a");

    const otherKey = encryptConnectionStore(inner, { keys: { k1: K2 }, current: "k1" });
    await undecryptable(otherKey, "a");
    const unknownId = encryptConnectionStore(inner, { keys: { k9: K1 }, current: "k9" });
    expect((await undecryptable(unknownId, "a")).message).toContain("k1");
    for (const bad of [
      "fdxenc.v2.k1",
      "fdxenc.v2.k1.abc.def",
      `fdxenc.v2.k1.${"A".repeat(16)}.A`,
      `${a.idToken}.extra`,
      "fdxenc.v2..AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA",
      "fdxenc.v3.k1.x.y",
    ]) {
      edit("a", { idToken: bad });
      await undecryptable(store, "a");
    }
  });

  it("names the first token in a fixed order (idToken, refreshToken, accessToken) when several do not open, not the one that failed first", async () => {
    const { store: inner, raw, edit } = editableStore();
    const store = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    await store.compareAndSet("a", 0, sampleConnection("a"));
    const { idToken } = raw("a");
    // The idToken fails only once decrypted; the refreshToken, plain text, fails before any decryption.
    edit("a", { idToken: idToken.slice(0, -2) + (idToken.at(-2) === "A" ? "B" : "A") + idToken.slice(-1), refreshToken: "plain" });
    expect((await undecryptable(store, "a")).message).toBe(
      'The idToken of connection "a" does not decrypt: a wrong key, or the value or its row was changed (a column edited, or an older value written back)',
    );
  });

  it("says why an envelope does not open, for each way it can be wrong", async () => {
    const { store: inner, edit } = editableStore();
    const store = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    await store.compareAndSet("a", 0, sampleConnection("a"));
    const why = async (idToken: unknown) => {
      edit("a", { idToken: idToken as string });
      return (await undecryptable(store, "a")).message.replace('The idToken of connection "a" does not decrypt: ', "");
    };
    const A = (bytes: number) => "A".repeat(Math.ceil((bytes * 4) / 3));
    // A store (or a hand edit) can hold anything, not only text.
    expect(await why(42)).toBe("it is not an encrypted envelope");
    expect(await why("plain-token-value")).toBe("it is not an encrypted envelope");
    expect(await why(`fdxenc.v3.k1.${A(12)}.${A(24)}`)).toBe("it is not an encrypted envelope");
    expect(await why(`fdxenc.v2.k1.!!.${A(16)}`)).toBe("the envelope is malformed");
    expect(await why(`fdxenc.v2.k1.${A(12)}.!!`)).toBe("the envelope is malformed");
    expect(await why(`fdxenc.v2.k1.${A(6)}.${A(24)}`)).toBe("the envelope is malformed");
    expect(await why(`fdxenc.v2.k1.${A(12)}.${"A".repeat(20)}`)).toBe("the envelope is malformed"); // 15 bytes: shorter than the tag
    expect(await why(`fdxenc.v2.k9.${A(12)}.${A(24)}`)).toBe('no key has the id "k9"');
    // Exactly a tag (an empty text) is well formed; it does not authenticate.
    const changed = "a wrong key, or the value or its row was changed (a column edited, or an older value written back)";
    expect(await why(`fdxenc.v2.k1.${A(12)}.${"A".repeat(22)}`)).toBe(changed);
    // A value of the previous format, or its empty token, in a row of the current one: a downgrade, refused.
    const mixed = "the row mixes envelope formats (a value was moved in from another row or version)";
    expect(await why(LEGACY_ROW.idToken)).toBe(mixed);
    expect(await why("")).toBe(mixed);

    // Sealed with the right key and binding, but not UTF-8: refused rather than read as replacement characters.
    const iv = new Uint8Array(12);
    const aesKey = await crypto.subtle.importKey("raw", Buffer.from(K1, "base64"), "AES-GCM", false, ["encrypt"]);
    const additionalData = associatedData("fdxkit-connection.v2", "k1", "a", "idToken", rowBinding(sampleConnection("a")));
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData }, aesKey, new Uint8Array([0xff, 0xfe])));
    const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
    expect(await why(`fdxenc.v2.k1.${b64(iv)}.${b64(sealed)}`)).toBe(changed);
    // The same bytes sealed for the plain text "ok" open: the binding above is the row's.
    const ok = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData }, aesKey, new TextEncoder().encode("ok")));
    edit("a", { idToken: `fdxenc.v2.k1.${b64(iv)}.${b64(ok)}` });
    expect((await store.get("a"))!.idToken).toBe("ok");
  });
  it("rekey() rewrites a row with one token still under an old key", async () => {
    // The same row sealed once under k1 and once under k2: values of both open in it (same version, same columns).
    const underK1 = editableStore();
    await encryptConnectionStore(underK1.store, { keys: { k1: K1 }, current: "k1" }).compareAndSet("a", 0, sampleConnection("a"));
    const { store: inner, raw, put } = editableStore();
    const rotated = encryptConnectionStore(inner, { keys: { k1: K1, k2: K2 }, current: "k2" });
    await rotated.compareAndSet("a", 0, sampleConnection("a"));
    put({ ...raw("a"), refreshToken: underK1.raw("a").refreshToken });
    expect(await rotated.get("a")).toEqual(sampleConnection("a"));
    expect(await rotated.rekey()).toBe(1);
    expect(raw("a")).toMatchObject({ version: 2, refreshToken: expect.stringMatching(/^fdxenc\.v2\.k2\./) });
    expect(await rotated.rekey()).toBe(0);
  });

  it("rekey() gives a row up after 5 lost writes, and skips a row deleted meanwhile", async () => {
    const inner = memoryConnectionStore();
    const old = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    await old.compareAndSet("a", 0, sampleConnection("a"));
    await old.compareAndSet("b", 0, sampleConnection("b"));
    let writes = 0;
    const losing: ConnectionStore = {
      ...inner,
      async compareAndSet(id, _expected, next) {
        writes++;
        if (id === "b") {
          await inner.delete("b");
          return false;
        }
        // Another writer (with the old key) always gets there first.
        const cur = (await inner.get(id))!;
        await old.compareAndSet(id, cur.version, { ...(await old.get(id))!, version: cur.version + 1 });
        return inner.compareAndSet(id, next.version - 1, next);
      },
    };
    const wrapped = encryptConnectionStore(losing, { keys: { k1: K1, k2: K2 }, current: "k2" });
    expect(await wrapped.rekey()).toBe(0);
    expect(writes).toBe(5 + 1);
    expect((await inner.get("a"))!.idToken).toMatch(/^fdxenc\.v2\.k1\./);
    expect(await inner.get("b")).toBeUndefined();
  });

  it("decrypts with older keys, writes with the current one, and rekey() rewrites every row", async () => {
    const inner = memoryConnectionStore();
    const old = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    for (const id of ["a", "b", "c"]) await old.compareAndSet(id, 0, sampleConnection(id));
    await old.compareAndSet("d", 0, sampleConnection("d", { status: "revoked", idToken: "", refreshToken: "" }));
    const rotated = encryptConnectionStore(inner, { keys: { k1: K1, k2: K2 }, current: "k2" });
    expect((await rotated.get("a"))!.idToken).toBe("id-token-of-a");
    await rotated.compareAndSet("a", 1, sampleConnection("a", { version: 2 }));
    expect((await inner.get("a"))!.idToken).toMatch(/^fdxenc\.v2\.k2\./);
    // b, c and the revoked d, whose empty tokens are sealed too.
    expect(await rotated.rekey()).toBe(3);
    for await (const row of inner.list()) {
      for (const field of ["idToken", "refreshToken", "accessToken"] as const) expect(row[field]).toMatch(/^fdxenc\.v2\.k2\./);
    }
    expect(await rotated.rekey()).toBe(0);
    const retired = encryptConnectionStore(inner, { keys: { k2: K2 }, current: "k2" });
    const ids: string[] = [];
    for await (const row of retired.list()) ids.push(`${row.id}:${row.refreshToken}`);
    expect(ids.sort()).toEqual(["a:refresh-token-of-a", "b:refresh-token-of-b", "c:refresh-token-of-c", "d:"]);
    expect((await retired.findByConsentId!("consent-b"))?.idToken).toBe("id-token-of-b");
  });

  it("rekey() reads a row again when a write overtook it", async () => {
    const inner = memoryConnectionStore();
    const old = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    await old.compareAndSet("a", 0, sampleConnection("a"));
    const rotated = encryptConnectionStore(inner, { keys: { k1: K1, k2: K2 }, current: "k2" });
    let raced = false;
    const racing: ConnectionStore = {
      ...inner,
      async compareAndSet(id, expected, next) {
        if (!raced) {
          raced = true;
          // Another writer (with the old key) gets there first.
          const cur = (await inner.get(id))!;
          await old.compareAndSet(id, cur.version, { ...(await old.get(id))!, version: cur.version + 1 });
        }
        return inner.compareAndSet(id, expected, next);
      },
    };
    const wrapped = encryptConnectionStore(racing, { keys: { k1: K1, k2: K2 }, current: "k2" });
    expect(await wrapped.rekey()).toBe(1);
    expect((await inner.get("a"))!).toMatchObject({ version: 3, idToken: expect.stringMatching(/^fdxenc\.v2\.k2\./) });
    expect((await rotated.get("a"))!.idToken).toBe("id-token-of-a");
  });

  it("refuses bad keys and a current key that is not among them, when made", () => {
    const inner = memoryConnectionStore();
    const refused = (options: unknown, path: RegExp) => {
      let error: unknown;
      try {
        encryptConnectionStore(inner, options as never);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FdxValidationError);
      expect((error as FdxValidationError).issues.map((i) => i.path).join(" ")).toMatch(path);
      expect(String((error as Error).message)).not.toContain(K1);
    };
    refused({ keys: { k1: Buffer.alloc(16, 1).toString("base64") }, current: "k1" }, /keys\.k1/);
    refused({ keys: { k1: Buffer.alloc(33, 1).toString("base64") }, current: "k1" }, /keys\.k1/);
    refused({ keys: { k1: "not base64!!" }, current: "k1" }, /keys\.k1/);
    refused({ keys: { k1: `${K1.replace(/=+$/, "")}AA` }, current: "k1" }, /keys\.k1/);
    refused({ keys: { k1: 42 }, current: "k1" }, /keys\.k1/);
    refused({ keys: { "k.1": K1 }, current: "k.1" }, /keys\.k\.1/);
    refused({ keys: { k1: K1 }, current: "k2" }, /current/);
    refused({ keys: { k1: K1 }, current: "toString" }, /current/);
    refused({ keys: null, current: "k1" }, /keys/);
    refused(undefined, /keys/);
    expect(() => encryptConnectionStore(inner, { keys: { k1: Buffer.alloc(32, 7).toString("base64url") }, current: "k1" })).not.toThrow();
    // A key pasted with a newline or spaces around it is the same key.
    expect(() => encryptConnectionStore(inner, { keys: { k1: ` ${K1}\n` }, current: "k1" })).not.toThrow();
  });

  it("lists every problem with the keys, each with its path and rule", () => {
    const issuesOf = (options: unknown) => {
      try {
        encryptConnectionStore(memoryConnectionStore(), options as never);
      } catch (e) {
        return (e as FdxValidationError).issues;
      }
      throw new Error("accepted");
    };
    expect(issuesOf({ keys: { "k.1": K1, k2: Buffer.alloc(16).toString("base64") }, current: "k3" })).toEqual([
      { path: "keys.k.1", message: "a key id is 1 to 64 letters, digits, _ or -" },
      { path: "keys.k2", message: "must be the base64 of exactly 32 bytes" },
      { path: "current", message: "must be one of the key ids of keys" },
    ]);
    expect(issuesOf({ keys: 7, current: "k1" })).toEqual([
      { path: "keys", message: "must be an object of key id to base64 key" },
      { path: "current", message: "must be one of the key ids of keys" },
    ]);
  });
});

// Properties only the encrypted wrapper has: a plain store returns what the
// database holds, edited or not, so these are not part of the store contract.
describe("encryptConnectionStore: the row binding (someone with write access to the database)", () => {
  const undecryptable = async (read: Promise<unknown>, id: string) => {
    const error = await rejectionOf(read);
    expect(error).toBeInstanceOf(FdxConnectionStoreError);
    expect(error).toMatchObject({ reason: "undecryptable", connectionId: id });
    return error as FdxConnectionStoreError;
  };
  const setup = async () => {
    const editable = editableStore();
    const store = encryptConnectionStore(editable.store, { keys: { k1: K1 }, current: "k1" });
    await store.compareAndSet("a", 0, sampleConnection("a", { accessToken: "access-1" }));
    await store.compareAndSet("b", 0, sampleConnection("b"));
    return { ...editable, store };
  };

  it("refuses an older row's tokens written back under a newer version (a spent refresh token never reaches the IdP)", async () => {
    const { store, raw, edit } = await setup();
    const v1 = raw("a");
    await store.compareAndSet("a", 1, sampleConnection("a", { version: 2, refreshToken: "rotated-refresh-token", accessToken: "access-2" }));
    // The older ciphertext, put back into the current row (version 2).
    edit("a", { refreshToken: v1.refreshToken });
    const error = await undecryptable(store.get("a"), "a");
    expect(error.message).toBe(
      'The refreshToken of connection "a" does not decrypt: a wrong key, or the value or its row was changed (a column edited, or an older value written back)',
    );
    expect(error.message).not.toContain("refresh-token-of-a");
    // The whole older row, tokens and all, under the newer version.
    edit("a", { ...v1, version: 2 });
    await undecryptable(store.get("a"), "a");
    // What it does not catch: the whole older row with its own version (that needs state outside the database).
    edit("a", v1);
    expect((await store.get("a"))!.refreshToken).toBe("refresh-token-of-a");
  });

  it("refuses a row whose consentId was edited, so a CONSENT_REVOKED for user B never finds user A", async () => {
    const { store, edit } = await setup();
    edit("a", { consentId: "consent-b" });
    // The store finds a's row (now holding b's consent id) first, and refuses it rather than hand it out.
    await undecryptable(store.findByConsentId!("consent-b"), "a");
    await undecryptable(store.get("a"), "a");
    edit("a", { consentId: undefined });
    await undecryptable(store.get("a"), "a");
    edit("a", { consentId: "consent-a" });
    expect((await store.get("a"))!.consentId).toBe("consent-a");
  });

  it("refuses a row whose accounts were edited: one added, one removed, or the order changed", async () => {
    const { store, edit } = await setup();
    for (const accounts of [["acct-1", "acct-2", "acct-of-b"], ["acct-1"], ["acct-2", "acct-1"], [], ["acct-1", "acct-2", ""]]) {
      edit("a", { accounts });
      await undecryptable(store.get("a"), "a");
    }
    edit("a", { accounts: ["acct-1", "acct-2"] });
    expect((await store.get("a"))!.accounts).toEqual(["acct-1", "acct-2"]);
  });

  it("refuses every other bound column edited, and a revoked row's edits too (its empty tokens are sealed)", async () => {
    const { store, edit, raw } = await setup();
    const original = raw("a");
    const edits: Partial<Connection>[] = [
      { status: "reauthorization_required" },
      { subject: "sub-b" },
      { connector: "another-bank" },
      { connector: undefined },
      { issuer: "https://evil.example" },
      { clientId: "client-2" },
      { createdAt: original.createdAt + 1 },
      { expiresAt: original.expiresAt + 1_000 },
      { expiresAt: Number.NaN },
      { version: 3 },
    ];
    for (const patch of edits) {
      edit("a", { ...original, ...patch });
      await undecryptable(store.get("a"), "a");
    }
    // Not bound: when it was last written, the lease, and the access token's expiry (read with the token, never used without it).
    edit("a", { ...original, updatedAt: 5, lease: { owner: "x", until: 1 } });
    expect((await store.get("a"))!.accessToken).toBe("access-1");

    await store.compareAndSet("b", 1, sampleConnection("b", { version: 2, status: "revoked", idToken: "", refreshToken: "" }));
    edit("b", { consentId: "consent-z" });
    await undecryptable(store.findByConsentId!("consent-z"), "b");
    await undecryptable(store.get("b"), "b");
  });

  it('binds one canonical encoding: absent, null and "" alike, times as integer milliseconds', async () => {
    const { store, edit, raw } = await setup();
    await store.compareAndSet("c", 0, sampleConnection("c", { connector: undefined, consentId: "", expiresAt: 1_900_000_000_000.4 }));
    const written = raw("c");
    // Another store's way of giving the same row back: null or "" for an unset column, a time rounded to the millisecond.
    edit("c", { connector: null as never, consentId: undefined, expiresAt: 1_900_000_000_000 });
    expect(await store.get("c")).toMatchObject({ id: "c", idToken: "id-token-of-c", expiresAt: 1_900_000_000_000 });
    edit("c", { ...written, connector: "" });
    expect((await store.get("c"))!.refreshToken).toBe("refresh-token-of-c");
  });

  it("binds no accounts, null accounts and an absent accounts column alike", async () => {
    const { store, edit } = await setup();
    await store.compareAndSet("c", 0, sampleConnection("c", { accounts: [] }));
    for (const accounts of [null, undefined]) {
      edit("c", { accounts: accounts as never });
      expect(await store.get("c")).toMatchObject({ id: "c", idToken: "id-token-of-c", refreshToken: "refresh-token-of-c" });
    }
  });

  it("refuses a time or accounts column of the wrong kind (a hand edit) with the typed error, never a crash", async () => {
    const { store, edit, raw } = await setup();
    const original = raw("a");
    const edits: Partial<Connection>[] = [
      { version: "1" as never },
      { createdAt: String(original.createdAt) as never },
      { expiresAt: null as never },
      { accounts: "acct-1" as never },
      { accounts: [1n, "acct-2"] as never },
    ];
    for (const patch of edits) {
      edit("a", { ...original, ...patch });
      await undecryptable(store.get("a"), "a");
    }
  });

  it("re-seals on every write: a lease write changes the version, and the row reads back after it", async () => {
    const { store, raw } = await setup();
    const before = raw("a");
    const leased = sampleConnection("a", { version: 2, accessToken: "access-1", lease: { owner: "m", until: 9 } });
    expect(await store.compareAndSet("a", 1, leased)).toBe(true);
    const after = raw("a");
    for (const field of ["idToken", "refreshToken", "accessToken"] as const) expect(after[field]).not.toBe(before[field]);
    expect(await store.get("a")).toEqual(leased);
  });

  it("opens a store the previous release wrote, re-seals a row on its next write, and rekey() re-seals the rest", async () => {
    const { store: inner, raw, put } = editableStore();
    put(LEGACY_ROW);
    put({
      ...LEGACY_ROW,
      id: "legacy-revoked",
      status: "revoked",
      idToken: "",
      refreshToken: "",
      accessToken: undefined as never,
      accessTokenExpiresAt: undefined as never,
    });
    const store = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    const opened = (await store.get("legacy-user"))!;
    expect(opened).toEqual({ ...LEGACY_ROW, idToken: "legacy-id-token", refreshToken: "legacy-refresh-token" });
    expect(await store.get("legacy-revoked")).toMatchObject({ idToken: "", refreshToken: "", accessToken: "", accessTokenExpiresAt: 0 });

    expect(await store.compareAndSet("legacy-user", 1, { ...opened, version: 2 })).toBe(true);
    expect(raw("legacy-user").refreshToken).toMatch(/^fdxenc\.v2\.k1\./);
    expect((await store.get("legacy-user"))!.refreshToken).toBe("legacy-refresh-token");
    expect(await store.rekey()).toBe(1);
    expect(raw("legacy-revoked")).toMatchObject({ version: 2, idToken: expect.stringMatching(/^fdxenc\.v2\.k1\./) });

    // After the rekey(), the previous format can be refused: nothing of it is left.
    const strict = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1", legacyEnvelopes: "refuse" });
    expect((await strict.get("legacy-user"))!.refreshToken).toBe("legacy-refresh-token");
    expect(await strict.get("legacy-revoked")).toMatchObject({ status: "revoked", idToken: "" });
  });

  it('with legacyEnvelopes: "refuse", a row of the previous format (an old row put back) is undecryptable, empty tokens included', async () => {
    const { store: inner, put } = editableStore();
    put(LEGACY_ROW);
    put({ ...LEGACY_ROW, id: "legacy-revoked", idToken: "", refreshToken: "" });
    const strict = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1", legacyEnvelopes: "refuse" });
    const error = await undecryptable(strict.get("legacy-user"), "legacy-user");
    expect(error.message).toBe(
      'Connection "legacy-user" does not decrypt: it is sealed in the previous envelope format, which legacyEnvelopes: "refuse" refuses (run rekey() with "accept" first)',
    );
    await undecryptable(strict.get("legacy-revoked"), "legacy-revoked");
    // By default the same row opens: "accept" is for until rekey() has run.
    expect((await encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" }).get("legacy-user"))!.idToken).toBe("legacy-id-token");
    expect(() => encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1", legacyEnvelopes: "never" as never })).toThrow(
      new FdxValidationError([{ path: "legacyEnvelopes", message: 'must be "accept" or "refuse"' }]),
    );
    // "accept", said outright, is the default.
    const accepting = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1", legacyEnvelopes: "accept" });
    expect((await accepting.get("legacy-user"))!.refreshToken).toBe("legacy-refresh-token");
  });

  it("says why a value of the previous format does not open: the key, or the value changed or moved (that format binds no column)", async () => {
    const { store: inner, put } = editableStore();
    put(LEGACY_ROW);
    const wrongKey = encryptConnectionStore(inner, { keys: { k1: K2 }, current: "k1" });
    const error = await undecryptable(wrongKey.get("legacy-user"), "legacy-user");
    expect(error.message).toBe('The idToken of connection "legacy-user" does not decrypt: a wrong key, or the value was changed or moved');
  });

  it("rekey() rewrites a previous-format row whose erased token the store gives back as null", async () => {
    const { store: inner, put, raw } = editableStore();
    // Stores differ in what an empty text column comes back as.
    put({ ...LEGACY_ROW, accessToken: null as never });
    const store = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    expect(await store.rekey()).toBe(1);
    expect(raw("legacy-user")).toMatchObject({ version: 2, accessToken: expect.stringMatching(/^fdxenc\.v2\.k1\./) });
    expect(await store.get("legacy-user")).toMatchObject({ refreshToken: "legacy-refresh-token", accessToken: "" });
  });

  it("rekey() stops at a row of the current format with a token emptied behind its back, with the typed error", async () => {
    const { store: inner, edit } = editableStore();
    const store = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    await store.compareAndSet("c", 0, { ...sampleConnection("c"), version: 1 });
    edit("c", { accessToken: null as never });
    const error = await rejectionOf(store.rekey());
    expect(error).toBeInstanceOf(FdxConnectionStoreError);
    expect(error).toMatchObject({
      reason: "undecryptable",
      connectionId: "c",
      message: 'The accessToken of connection "c" does not decrypt: the row mixes envelope formats (a value was moved in from another row or version)',
    });
  });
});
