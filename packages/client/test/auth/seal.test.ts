import { inspect } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FdxAuthError, openAuthorization, sealAuthorization, type PendingAuthorization } from "../../src/auth/index.js";
import { FdxValidationError } from "../../src/index.js";
import { rejectionOf } from "../support/http.js";

const key = (fill: number) => Buffer.alloc(32, fill).toString("base64");
const K1 = key(1);
const K2 = key(2);
const KEYS = { k1: K1 };
/** As authorizationUrl makes them: 32 random bytes, 43 base64url characters each. */
const token = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
const pending = (): PendingAuthorization => ({ state: token(), nonce: token(), codeVerifier: token() });
const seal = (request: PendingAuthorization, connectionId = "alice", keys: Record<string, string> = KEYS, current = "k1") =>
  sealAuthorization(request, { connectionId, keys, current });

/** What a value sealed by this SDK is made of, built here from the outside: `v1.<key id>.<base64url(iv ‖ AES-GCM(plain))>`. */
async function sealByHand(plain: string | Uint8Array<ArrayBuffer>, options: { keyId: string; key: string; additionalData: string }) {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const cryptoKey = await crypto.subtle.importKey("raw", Buffer.from(options.key, "base64"), "AES-GCM", false, ["encrypt"]);
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(options.additionalData) },
      cryptoKey,
      typeof plain === "string" ? new TextEncoder().encode(plain) : plain,
    ),
  );
  return `v1.${options.keyId}.${Buffer.concat([iv, sealed]).toString("base64url")}`;
}

/** The refusal, checked to be `invalid_state` and to hold none of the secrets. */
async function refusal(promise: Promise<unknown>, secrets: string[] = []): Promise<string> {
  const error = (await rejectionOf(promise)) as FdxAuthError;
  expect(error).toBeInstanceOf(FdxAuthError);
  expect(error.error).toBe("invalid_state");
  expect(error.status).toBeUndefined();
  expect(error.message).toBe(`invalid_state: ${error.errorDescription}`);
  const shown = `${error.message} ${inspect(error)} ${JSON.stringify(error)}`;
  for (const secret of [K1, K2, ...secrets]) expect(shown).not.toContain(secret);
  return error.errorDescription!;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("sealAuthorization / openAuthorization", () => {
  it("round-trips state, nonce and code verifier in one compact base64url string that hides them", async () => {
    const request = pending();
    const sealed = await seal({ ...request, url: "https://idp.test/authorize?x=1" } as PendingAuthorization);
    expect(sealed).toMatch(/^v1\.k1\.[A-Za-z0-9_-]+$/);
    // 43-character values and a 2-character key id: 248 characters, whatever the connection id (it is not stored).
    expect(sealed).toHaveLength(248);
    expect(await seal(request, "a-much-longer-connection-id-".repeat(10))).toHaveLength(248);
    for (const value of Object.values(request)) expect(sealed).not.toContain(value);
    expect(sealed).not.toContain("idp.test");
    expect(await openAuthorization(sealed, { connectionId: "alice", keys: KEYS })).toEqual(request);
    // A fresh IV each time: the same values sealed twice are two strings.
    expect(await seal(request)).not.toBe(sealed);
  });

  it("opens values sealed with an older key after rotation, and seals with the current one", async () => {
    const request = pending();
    const old = await seal(request, "alice", { k1: K1 }, "k1");
    const rotated = { k1: K1, k2: ` ${K2.replace(/\+/g, "-").replace(/\//g, "_")}\n` };
    expect(await openAuthorization(old, { connectionId: "alice", keys: rotated })).toEqual(request);
    const fresh = await seal(request, "alice", rotated, "k2");
    expect(fresh.startsWith("v1.k2.")).toBe(true);
    expect(await openAuthorization(fresh, { connectionId: "alice", keys: rotated })).toEqual(request);
  });

  it("opens any value it sealed, whatever its characters", async () => {
    const request = { state: "é|.\n\"'", nonce: "😀", codeVerifier: "[1,2]" };
    expect(await openAuthorization(await seal(request, "über|id"), { connectionId: "über|id", keys: KEYS })).toEqual(request);
  });
});

describe("openAuthorization refuses with invalid_state", () => {
  it("a tampered value", async () => {
    const request = pending();
    const sealed = await seal(request);
    // A character in the middle: every bit of it is ciphertext (the last one may carry padding bits).
    const at = 100;
    const tampered = sealed.slice(0, at) + (sealed[at] === "A" ? "B" : "A") + sealed.slice(at + 1);
    expect(await refusal(openAuthorization(tampered, { connectionId: "alice", keys: KEYS }), Object.values(request))).toBe(
      "the sealed authorization does not open: it was changed, or sealed for another connection id or with another key of that id",
    );
  });

  it("an expired value, from its expiry on (ten minutes unless ttlMs says otherwise)", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.parse("2026-03-01T12:00:00.000Z") });
    const request = pending();
    const sealed = await seal(request);
    const short = await sealAuthorization(request, { connectionId: "alice", keys: KEYS, current: "k1", ttlMs: 1_000 });
    vi.setSystemTime(Date.parse("2026-03-01T12:00:00.999Z"));
    expect(await openAuthorization(short, { connectionId: "alice", keys: KEYS })).toEqual(request);
    vi.setSystemTime(Date.parse("2026-03-01T12:00:01.000Z"));
    expect(await refusal(openAuthorization(short, { connectionId: "alice", keys: KEYS }), Object.values(request))).toBe(
      "the sealed authorization expired at 2026-03-01T12:00:01.000Z",
    );
    vi.setSystemTime(Date.parse("2026-03-01T12:09:59.999Z"));
    expect(await openAuthorization(sealed, { connectionId: "alice", keys: KEYS })).toEqual(request);
    vi.setSystemTime(Date.parse("2026-03-01T12:10:00.000Z"));
    expect(await refusal(openAuthorization(sealed, { connectionId: "alice", keys: KEYS }))).toBe(
      "the sealed authorization expired at 2026-03-01T12:10:00.000Z",
    );
  });

  it("a value sealed with a key id not among the keys", async () => {
    const sealed = await seal(pending());
    expect(await refusal(openAuthorization(sealed, { connectionId: "alice", keys: { k2: K2 } }))).toBe(
      'the sealed authorization was sealed with the key id "k1", which is not among the keys',
    );
  });

  it("a value sealed with another key under the same id", async () => {
    const sealed = await seal(pending());
    expect(await refusal(openAuthorization(sealed, { connectionId: "alice", keys: { k1: K2 } }))).toMatch(/^the sealed authorization does not open: /);
  });

  it("a value sealed for another connection id", async () => {
    const request = pending();
    const sealed = await seal(request, "alice");
    expect(await refusal(openAuthorization(sealed, { connectionId: "bob", keys: KEYS }), Object.values(request))).toBe(
      "the sealed authorization does not open: it was changed, or sealed for another connection id or with another key of that id",
    );
    expect(await refusal(openAuthorization(sealed, { connectionId: "alice ", keys: KEYS }))).toMatch(/does not open/);
  });

  it("a value whose key id was changed to another id of the same key", async () => {
    const sealed = await seal(pending(), "alice", { k1: K1, k2: K1 }, "k1");
    const moved = sealed.replace(/^v1\.k1\./, "v1.k2.");
    expect(await refusal(openAuthorization(moved, { connectionId: "alice", keys: { k1: K1, k2: K1 } }))).toMatch(/does not open/);
  });

  it("a value sealed by the same key for another purpose (the label is bound)", async () => {
    const plain = JSON.stringify([Date.now() + 60_000, "s", "n", "v"]);
    const right = await sealByHand(plain, { keyId: "k1", key: K1, additionalData: "fdxkit-authorization|k1|alice" });
    expect(await openAuthorization(right, { connectionId: "alice", keys: KEYS })).toEqual({ state: "s", nonce: "n", codeVerifier: "v" });
    for (const additionalData of ["k1|alice", "other-purpose|k1|alice", "v1|k1|alice|idToken"]) {
      const other = await sealByHand(plain, { keyId: "k1", key: K1, additionalData });
      expect(await refusal(openAuthorization(other, { connectionId: "alice", keys: KEYS }))).toMatch(/does not open/);
    }
  });

  it("a missing value (no cookie)", async () => {
    for (const missing of [undefined, null, "", 42]) {
      expect(await refusal(openAuthorization(missing as unknown as string, { connectionId: "alice", keys: KEYS }))).toBe(
        "the sealed authorization is missing (did the cookie come back with the callback?)",
      );
    }
  });

  it("a malformed value", async () => {
    const sealed = await seal(pending());
    const [, , body] = sealed.split(".");
    const cases = [
      "garbage",
      `v2.k1.${body}`,
      `v1.k1.${body}.more`,
      `v1.k1`,
      `v1..${body}`,
      `v1.k/1.${body}`,
      `v1.${"k".repeat(65)}.${body}`,
      `v1.k1.${body}*`,
      `v1.k1.${body!.slice(0, 37)}`,
      "fdxenc.v1.k1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    ];
    for (const value of cases)
      expect([value, await refusal(openAuthorization(value, { connectionId: "alice", keys: KEYS }))]).toEqual([value, "the sealed authorization is malformed"]);
    // Twelve bytes of IV and a sixteen-byte tag are the least a sealed value holds: one byte less is malformed, not "does not open".
    const shortest = Buffer.alloc(28).toString("base64url");
    expect(await refusal(openAuthorization(`v1.k1.${shortest.slice(0, -2)}`, { connectionId: "alice", keys: KEYS }))).toBe(
      "the sealed authorization is malformed",
    );
    expect(await refusal(openAuthorization(`v1.k1.${shortest}`, { connectionId: "alice", keys: KEYS }))).toMatch(/does not open/);
  });

  it("a value longer than any sealed one, before decoding it", async () => {
    const long = `v1.k1.${"A".repeat(1019)}`;
    expect(long).toHaveLength(1025);
    expect(await refusal(openAuthorization(long, { connectionId: "alice", keys: KEYS }))).toBe(
      "the sealed authorization is malformed (1025 characters, over 1024)",
    );
    expect(await refusal(openAuthorization(long.slice(0, -1), { connectionId: "alice", keys: KEYS }))).toMatch(/does not open/);
  });

  it("an authentic value that holds something else than sealAuthorization's (a key used for two things)", async () => {
    const ad = "fdxkit-authorization|k1|alice";
    const shapes = [
      "not json",
      "{}",
      '{"0":1,"length":4}',
      "[1,2,3]",
      '[1,"s","n",""]',
      '["soon","s","n","v"]',
      '[1,"s","n","v",5]',
      '[1,"s","n"]',
      '[1,"s","n","v","w"]',
      '[1,"s",2,"v"]',
    ];
    for (const plain of shapes) {
      const sealed = await sealByHand(plain, { keyId: "k1", key: K1, additionalData: ad });
      expect([plain, await refusal(openAuthorization(sealed, { connectionId: "alice", keys: KEYS }))]).toEqual([
        plain,
        "the sealed authorization is malformed inside",
      ]);
    }
    const notUtf8 = await sealByHand(new Uint8Array([0x5b, 0x31, 0x2c, 0x22, 0xff, 0x22, 0x5d]), { keyId: "k1", key: K1, additionalData: ad });
    expect(await refusal(openAuthorization(notUtf8, { connectionId: "alice", keys: KEYS }))).toBe("the sealed authorization is malformed inside");
    // The right shape with a byte that is no UTF-8 inside a value: refused, not opened with a replacement character.
    const prefix = new TextEncoder().encode(`[${Date.now() + 60_000},"s`);
    const suffix = new TextEncoder().encode('","n","v"]');
    const shaped = new Uint8Array([...prefix, 0xff, ...suffix]);
    expect(
      await refusal(openAuthorization(await sealByHand(shaped, { keyId: "k1", key: K1, additionalData: ad }), { connectionId: "alice", keys: KEYS })),
    ).toBe("the sealed authorization is malformed inside");
  });
});

describe("misuse is a FdxValidationError", () => {
  const validation = async (promise: Promise<unknown>) => {
    const error = (await rejectionOf(promise)) as FdxValidationError;
    expect(error).toBeInstanceOf(FdxValidationError);
    expect(error.message).not.toContain(K1);
    return error.issues;
  };

  it("sealAuthorization: keys, current, connection id, values and ttlMs", async () => {
    const request = pending();
    expect(
      await validation(sealAuthorization(request, { connectionId: "alice", keys: { k1: Buffer.alloc(31, 1).toString("base64"), "k 2": K2 }, current: "k3" })),
    ).toEqual([
      { path: "keys.k1", message: "must be the base64 of exactly 32 bytes" },
      { path: "keys.k 2", message: "a key id is 1 to 64 letters, digits, _ or -" },
      { path: "current", message: "must be one of the key ids of keys" },
    ]);
    expect(await validation(sealAuthorization(request, { connectionId: "alice", keys: { k1: "not base64!" }, current: "k1" }))).toEqual([
      { path: "keys.k1", message: "must be the base64 of exactly 32 bytes" },
    ]);
    expect(await validation(sealAuthorization(request, { connectionId: "alice", keys: "k1" as unknown as Record<string, string>, current: "0" }))).toEqual([
      { path: "keys", message: "must be an object of key id to base64 key" },
      { path: "current", message: "must be one of the key ids of keys" },
    ]);
    expect(await validation(sealAuthorization(request, { connectionId: "alice", keys: null as never, current: "k1" }))).toEqual([
      { path: "keys", message: "must be an object of key id to base64 key" },
      { path: "current", message: "must be one of the key ids of keys" },
    ]);
    expect(
      await validation(
        sealAuthorization({ state: "", nonce: 5 as unknown as string } as PendingAuthorization, { connectionId: "", keys: KEYS, current: "k1" }),
      ),
    ).toEqual([
      { path: "request.state", message: "must be a non-empty string" },
      { path: "request.nonce", message: "must be a non-empty string" },
      { path: "request.codeVerifier", message: "must be a non-empty string" },
      { path: "connectionId", message: "must be a non-empty string" },
    ]);
    for (const ttlMs of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "600" as unknown as number]) {
      expect(await validation(sealAuthorization(request, { connectionId: "alice", keys: KEYS, current: "k1", ttlMs }))).toEqual([
        { path: "ttlMs", message: "must be an integer >= 1" },
      ]);
    }
    expect(
      await validation(
        sealAuthorization(
          null as unknown as PendingAuthorization,
          undefined as unknown as { connectionId: string; keys: Record<string, string>; current: string },
        ),
      ),
    ).toHaveLength(6);
  });

  it("sealAuthorization: values too long for a cookie, up to 1 KiB sealed and not one character more", async () => {
    const request = pending();
    let fits = "";
    let error: unknown;
    for (let length = 500; !error; length++) {
      const long = { ...request, codeVerifier: "v".repeat(length) };
      try {
        fits = await seal(long);
      } catch (e) {
        error = e;
      }
    }
    expect(fits.length).toBeGreaterThan(1020);
    expect(fits.length).toBeLessThanOrEqual(1024);
    expect(error).toBeInstanceOf(FdxValidationError);
    const issues = (error as FdxValidationError).issues;
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe("request");
    expect(issues[0]!.message).toMatch(/^sealed, it is 102[5-8] characters, over the 1024 that fit a cookie: state, nonce and codeVerifier are too long$/);
    expect((error as Error).message).not.toContain(request.state);
  });

  it("openAuthorization: keys and connection id", async () => {
    const sealed = await seal(pending());
    expect(await validation(openAuthorization(sealed, { connectionId: "", keys: { k1: K1.slice(4) } }))).toEqual([
      { path: "connectionId", message: "must be a non-empty string" },
      { path: "keys.k1", message: "must be the base64 of exactly 32 bytes" },
    ]);
    expect(await validation(openAuthorization(sealed, { connectionId: "alice", keys: null as unknown as Record<string, string> }))).toEqual([
      { path: "keys", message: "must be an object of key id to base64 key" },
    ]);
    expect(await validation(openAuthorization(sealed, undefined as never))).toEqual([
      { path: "connectionId", message: "must be a non-empty string" },
      { path: "keys", message: "must be an object of key id to base64 key" },
    ]);
  });
});
