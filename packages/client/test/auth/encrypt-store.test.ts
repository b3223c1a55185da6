import { describe, expect, it } from "vitest";
import { encryptConnectionStore, FdxConnectionStoreError, memoryConnectionStore, type ConnectionStore } from "../../src/auth/index.js";
import { FdxValidationError } from "../../src/index.js";
import { rejectionOf } from "../support/http.js";
import { describeConnectionStore, sampleConnection } from "../support/store-conformance.js";

const key = (fill: number) => Buffer.alloc(32, fill).toString("base64");
const K1 = key(1);
const K2 = key(2);

describeConnectionStore("encrypted (AES-256-GCM) over memory", () => encryptConnectionStore(memoryConnectionStore(), { keys: { k1: K1 }, current: "k1" }));
describeConnectionStore("encrypted over a store without findByConsentId", () => {
  const { findByConsentId: _drop, ...inner } = memoryConnectionStore();
  return encryptConnectionStore(inner as ConnectionStore, { keys: { k1: K1 }, current: "k1" });
});

describe("encryptConnectionStore", () => {
  it("stores tokens only as versioned envelopes with the key id; reads them back", async () => {
    const inner = memoryConnectionStore();
    const store = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    const row = sampleConnection("u1");
    await store.compareAndSet("u1", 0, row);
    const raw = (await inner.get("u1"))!;
    for (const field of ["idToken", "refreshToken"] as const) {
      expect(raw[field]).toMatch(/^fdxenc\.v1\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
      expect(raw[field]).not.toContain(row[field]);
    }
    expect(raw.subject).toBe(row.subject);
    expect(await store.get("u1")).toEqual(row);
    // A fresh IV each write: the same token twice is two different envelopes.
    await store.compareAndSet("u1", 1, { ...row, version: 2 });
    expect((await inner.get("u1"))!.idToken).not.toBe(raw.idToken);
  });

  it("keeps empty (erased) tokens empty", async () => {
    const inner = memoryConnectionStore();
    const store = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    const row = sampleConnection("u1", { status: "revoked", idToken: "", refreshToken: "" });
    await store.compareAndSet("u1", 0, row);
    expect((await inner.get("u1"))!.idToken).toBe("");
    expect(await store.get("u1")).toEqual(row);
  });

  const undecryptable = async (store: ConnectionStore, id: string) => {
    const error = (await rejectionOf(store.get(id))) as FdxConnectionStoreError;
    expect(error).toBeInstanceOf(FdxConnectionStoreError);
    expect(error).toMatchObject({ reason: "undecryptable", connectionId: id });
    return error;
  };

  it("refuses plain text, a tampered value, a value moved to another row or field, and a wrong key", async () => {
    const inner = memoryConnectionStore();
    const store = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    await store.compareAndSet("a", 0, sampleConnection("a"));
    await store.compareAndSet("b", 0, sampleConnection("b"));
    const a = (await inner.get("a"))!;
    const b = (await inner.get("b"))!;
    const put = async (id: string, patch: Partial<typeof a>) => {
      const cur = (await inner.get(id))!;
      await inner.compareAndSet(id, cur.version, { ...cur, ...patch, version: cur.version + 1 });
    };

    await put("a", { idToken: "plain-token-value" });
    expect((await undecryptable(store, "a")).message).not.toContain("plain-token-value");
    const flipped = a.idToken.slice(0, -2) + (a.idToken.endsWith("A") ? "B" : "A") + a.idToken.slice(-1);
    await put("a", { idToken: flipped });
    await undecryptable(store, "a");
    await put("a", { idToken: b.idToken });
    await undecryptable(store, "a");
    await put("a", { idToken: a.refreshToken, refreshToken: a.idToken });
    await undecryptable(store, "a");
    await put("a", { idToken: a.idToken, refreshToken: a.refreshToken });
    expect((await store.get("a"))!.idToken).toBe("id-token-of-a");

    const otherKey = encryptConnectionStore(inner, { keys: { k1: K2 }, current: "k1" });
    await undecryptable(otherKey, "a");
    const unknownId = encryptConnectionStore(inner, { keys: { k9: K1 }, current: "k9" });
    expect((await undecryptable(unknownId, "a")).message).toContain("k1");
    for (const bad of ["fdxenc.v1.k1", "fdxenc.v1.k1.abc.def", `fdxenc.v1.k1.${"A".repeat(16)}.A`, `${a.idToken}.extra`, "fdxenc.v1..AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA"]) {
      await put("a", { idToken: bad });
      await undecryptable(store, "a");
    }
  });

  it("says why an envelope does not open, for each way it can be wrong", async () => {
    const inner = memoryConnectionStore();
    const store = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    await store.compareAndSet("a", 0, sampleConnection("a"));
    const put = async (idToken: unknown) => {
      const cur = (await inner.get("a"))!;
      await inner.compareAndSet("a", cur.version, { ...cur, idToken: idToken as string, version: cur.version + 1 });
    };
    const why = async (idToken: unknown) => {
      await put(idToken);
      return (await undecryptable(store, "a")).message.replace('The idToken of connection "a" does not decrypt: ', "");
    };
    const A = (bytes: number) => "A".repeat(Math.ceil((bytes * 4) / 3));
    // A store (or a hand edit) can hold anything, not only text.
    expect(await why(42)).toBe("it is not an encrypted envelope");
    expect(await why("plain-token-value")).toBe("it is not an encrypted envelope");
    expect(await why(`fdxenc.v1.k1.!!.${A(16)}`)).toBe("the envelope is malformed");
    expect(await why(`fdxenc.v1.k1.${A(12)}.!!`)).toBe("the envelope is malformed");
    expect(await why(`fdxenc.v1.k1.${A(6)}.${A(24)}`)).toBe("the envelope is malformed");
    expect(await why(`fdxenc.v1.k1.${A(12)}.${"A".repeat(20)}`)).toBe("the envelope is malformed"); // 15 bytes: shorter than the tag
    expect(await why(`fdxenc.v1.k9.${A(12)}.${A(24)}`)).toBe('no key has the id "k9"');
    // Exactly a tag (an empty text) is well formed; it does not authenticate.
    expect(await why(`fdxenc.v1.k1.${A(12)}.${"A".repeat(22)}`)).toBe("a wrong key, or the value was changed or moved");

    // Sealed with the right key and binding, but not UTF-8: refused rather than read as replacement characters.
    const iv = new Uint8Array(12);
    const aesKey = await crypto.subtle.importKey("raw", Buffer.from(K1, "base64"), "AES-GCM", false, ["encrypt"]);
    const additionalData = new TextEncoder().encode("v1|k1|a|idToken");
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData }, aesKey, new Uint8Array([0xff, 0xfe])));
    const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
    expect(await why(`fdxenc.v1.k1.${b64(iv)}.${b64(sealed)}`)).toBe("a wrong key, or the value was changed or moved");
  });

  it("rekey() rewrites a row with one token still under an old key", async () => {
    const inner = memoryConnectionStore();
    const old = encryptConnectionStore(inner, { keys: { k1: K1 }, current: "k1" });
    // An erased id token counts as current; the refresh token is still under k1.
    await old.compareAndSet("a", 0, sampleConnection("a", { idToken: "" }));
    const rotated = encryptConnectionStore(inner, { keys: { k1: K1, k2: K2 }, current: "k2" });
    expect(await rotated.rekey()).toBe(1);
    expect((await inner.get("a"))!.refreshToken).toMatch(/^fdxenc\.v1\.k2\./);
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
    expect((await inner.get("a"))!.idToken).toMatch(/^fdxenc\.v1\.k1\./);
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
    expect((await inner.get("a"))!.idToken).toMatch(/^fdxenc\.v1\.k2\./);
    expect(await rotated.rekey()).toBe(2);
    for await (const row of inner.list()) {
      if (row.idToken) expect(row.idToken).toMatch(/^fdxenc\.v1\.k2\./);
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
    expect((await inner.get("a"))!).toMatchObject({ version: 3, idToken: expect.stringMatching(/^fdxenc\.v1\.k2\./) });
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
