import { afterEach, describe, expect, it, vi } from "vitest";
import { FdxAuthError } from "../../src/auth/index.js";
import { peekClaims, readIdToken, type IdTokenChecks } from "../../src/auth/id-token.js";

const b64 = (value: string | Uint8Array) => Buffer.from(value).toString("base64url");
const HEADER = b64(JSON.stringify({ alg: "RS256" }));
const token = (payload: string | Uint8Array) => `${HEADER}.${b64(payload)}.sig`;
const jwt = (claims: Record<string, unknown>) => token(JSON.stringify(claims));
const checks: IdTokenChecks = { clientId: "c", issuer: "/iss", nonce: undefined, previous: undefined };
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
const good = { iss: "/iss", sub: "s", aud: "c", exp: inAnHour() };

const failure = (run: () => unknown) => {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(FdxAuthError);
    return (e as FdxAuthError).errorDescription;
  }
  throw new Error("accepted");
};

describe("readIdToken", () => {
  it("refuses a payload that is not UTF-8, even inside a JSON string", () => {
    const bytes = Buffer.concat([Buffer.from('{"iss":"/iss","sub":"'), Buffer.from([0xff]), Buffer.from('","aud":"c","exp":2000000000}')]);
    expect(failure(() => readIdToken(token(bytes), checks))).toBe("its payload is not base64url JSON");
    expect(peekClaims(token(bytes))).toBeUndefined();
  });

  it("refuses an exp that is not a finite positive number", () => {
    for (const exp of ["1e400", '"2000000000"', "0", "-1", "null"]) {
      const payload = `{"iss":"/iss","sub":"s","aud":"c","exp":${exp}}`;
      expect([exp, failure(() => readIdToken(token(payload), checks))]).toEqual([exp, "its exp is missing"]);
    }
    expect(readIdToken(jwt({ ...good, exp: good.exp + 0.5 }), checks).exp).toBe(good.exp + 0.5);
  });

  it("refuses a sub that is missing, empty or not a string", () => {
    for (const sub of [undefined, "", 42, ["s"]]) {
      expect([sub, failure(() => readIdToken(jwt({ ...good, sub }), checks))]).toEqual([sub, "its sub is missing"]);
    }
  });

  it("compares with the refreshed token only the claims it had", () => {
    expect(readIdToken(jwt(good), { ...checks, previous: {} })).toMatchObject(good);
    expect(readIdToken(jwt(good), { ...checks, previous: { iss: "/iss", sub: "s", aud: "c" } })).toMatchObject(good);
  });

  it("compares audiences as sets, a lone string being a set of one", () => {
    const withAud = (aud: unknown, previousAud: unknown) => () => readIdToken(jwt({ ...good, aud, azp: "c" }), { ...checks, previous: { aud: previousAud } });
    expect(withAud("c", ["c"])()).toMatchObject({ aud: "c" });
    expect(withAud(["c"], "c")()).toMatchObject({ aud: ["c"] });
    expect(withAud(["x", "c"], ["c", "x"])()).toMatchObject({ aud: ["x", "c"] });
    expect(failure(withAud("c", "other"))).toBe("its aud differs from the refreshed token's");
    expect(failure(withAud(["c", "y"], ["c", "x"]))).toBe("its aud differs from the refreshed token's");
    expect(failure(withAud(["c", "x"], 5))).toBe("its aud differs from the refreshed token's");
  });
});

describe("readIdToken: exp", () => {
  const now = () => Math.floor(Date.now() / 1000);
  const withExp = (exp: number) => () => readIdToken(jwt({ ...good, exp }), checks);

  it("refuses a token that expired more than 60 s ago, and takes one within the skew", () => {
    expect(failure(withExp(now() - 3600))).toBe("its exp has passed");
    expect(failure(withExp(now() - 61))).toBe("its exp has passed");
    expect(withExp(now() - 50)()).toMatchObject({ sub: "s" });
    expect(withExp(now() + 5)()).toMatchObject({ sub: "s" });
  });

  it("refuses an exp more than 400 days ahead, and past the range of a date; takes 399 days", () => {
    for (const exp of [now() + 401 * 86_400, 1e300, 8.64e12 + 1, Number.MAX_SAFE_INTEGER]) {
      expect([exp, failure(withExp(exp))]).toEqual([exp, "its exp is more than 400 days ahead"]);
    }
    expect(withExp(now() + 399 * 86_400)()).toMatchObject({ sub: "s" });
  });

  describe("at the exact edges (the clock on a whole second)", () => {
    afterEach(() => vi.useRealTimers());
    const at = Date.UTC(2026, 2, 1, 12, 0, 0);

    it("an exp exactly 60 s ago has passed; one second later it has not", () => {
      vi.useFakeTimers({ now: at });
      expect(failure(withExp(at / 1000 - 60))).toBe("its exp has passed");
      expect(withExp(at / 1000 - 59)()).toMatchObject({ sub: "s" });
    });

    it("an exp exactly 400 days ahead is taken; one second more is not", () => {
      vi.useFakeTimers({ now: at });
      expect(withExp(at / 1000 + 400 * 86_400)()).toMatchObject({ sub: "s" });
      expect(failure(withExp(at / 1000 + 400 * 86_400 + 1))).toBe("its exp is more than 400 days ahead");
    });
  });

  it("names the check, never the token", () => {
    const token = jwt({ ...good, exp: 1e300, secret: "do-not-show-me" });
    try {
      readIdToken(token, checks);
      throw new Error("accepted");
    } catch (e) {
      expect(String(e)).toBe("FdxAuthError: invalid_id_token: its exp is more than 400 days ahead");
      expect(JSON.stringify(e)).not.toContain(token.split(".")[1]!.slice(0, 12));
    }
  });
});

describe("readIdToken: alg", () => {
  const withAlg = (alg: unknown) => () => readIdToken(`${b64(JSON.stringify({ alg }))}.${b64(JSON.stringify(good))}.sig`, checks);

  it("takes the asymmetric JWS algorithms", () => {
    for (const alg of ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "ES256K", "EdDSA", "Ed25519"]) {
      expect(withAlg(alg)()).toMatchObject({ sub: "s" });
    }
  });

  it("refuses none in any spelling, shared-secret MACs, and anything else", () => {
    for (const alg of ["none", "None", "NONE", "nOnE", "HS256", "HS384", "HS512", "rs256", "RS256 ", "", "dir", "RSA-OAEP", 256, null, undefined]) {
      const error = (() => {
        try {
          withAlg(alg)();
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect([alg, error]).toEqual([alg, expect.any(FdxAuthError)]);
      expect(error).toMatchObject({ error: "invalid_id_token", errorDescription: "its alg is not an asymmetric JWS algorithm" });
    }
  });
});
