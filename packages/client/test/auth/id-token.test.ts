import { describe, expect, it } from "vitest";
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
