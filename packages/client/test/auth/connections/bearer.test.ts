// Which token of a connection data calls get, and when it is due for a
// refresh: the app's margin, but never more than half the token's lifetime.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createBearer } from "../../../src/auth/connections/bearer.js";
import { FdxAuthError } from "../../../src/auth/errors.js";
import type { Connection } from "../../../src/auth/types.js";

const NOW = 1_800_000_000_000;
const MINUTE = 60_000;
afterEach(() => vi.useRealTimers());

/** An unsigned JWT with these claims: the bearer only peeks at them. */
const jwt = (claims: Record<string, unknown>) => `e30.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.sig`;

function row(patch: Partial<Connection>): Connection {
  return {
    id: "user-42",
    status: "active",
    connector: undefined,
    consentId: undefined,
    issuer: "https://idp.test/",
    clientId: "app",
    subject: "sub-1",
    accounts: [],
    idToken: jwt({ iat: NOW / 1000, exp: NOW / 1000 + 3600 }),
    refreshToken: "rt",
    expiresAt: NOW + 60 * MINUTE,
    accessToken: "at",
    accessTokenExpiresAt: NOW + 60 * MINUTE,
    createdAt: NOW,
    updatedAt: NOW,
    version: 1,
    ...patch,
  };
}

describe("an id token as the bearer", () => {
  const bearer = createBearer("id_token", 5 * MINUTE);

  it("is usable until the app's margin before its expiry", () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW + 54 * MINUTE });
    expect(bearer.usable(row({}), undefined)).toBe(true);
    vi.setSystemTime(NOW + 56 * MINUTE);
    expect(bearer.usable(row({}), undefined)).toBe(false);
  });

  it("one that lives shorter than twice the margin is refreshed at half its life, not on every use", () => {
    // Lives 4 minutes: the 5-minute margin would make it due at once; it is due after 2.
    const short = row({ idToken: jwt({ iat: NOW / 1000, exp: NOW / 1000 + 240 }), expiresAt: NOW + 4 * MINUTE });
    vi.useFakeTimers({ toFake: ["Date"], now: NOW + MINUTE });
    expect(bearer.usable(short, undefined)).toBe(true);
    vi.setSystemTime(NOW + 2 * MINUTE + 1);
    expect(bearer.usable(short, undefined)).toBe(false);
  });

  it.each([
    ["no exp", { iat: NOW / 1000 }],
    ["no iat", { exp: NOW / 1000 + 240 }],
    ["iat not before exp", { iat: NOW / 1000 + 240, exp: NOW / 1000 + 240 }],
    ["exp a string of digits", { iat: NOW / 1000, exp: String(NOW / 1000 + 240) }],
    ["iat a string of digits", { iat: String(NOW / 1000), exp: NOW / 1000 + 240 }],
  ])("claims that give no lifetime (%s): the app's margin holds alone", (_, claims) => {
    const unknown = row({ idToken: jwt(claims), expiresAt: NOW + 4 * MINUTE });
    vi.useFakeTimers({ toFake: ["Date"], now: NOW - 2 * MINUTE });
    expect(bearer.usable(unknown, undefined)).toBe(true);
    vi.setSystemTime(NOW - MINUTE + 1);
    expect(bearer.usable(unknown, undefined)).toBe(false);
  });

  it("is not handed out again once a data call rejected it, nor when the row has none", () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW });
    const r = row({});
    expect(bearer.usable(r, r.idToken)).toBe(false);
    expect(bearer.usable(r, "another")).toBe(true);
    expect(bearer.usable(row({ idToken: "" }), undefined)).toBe(false);
  });
});

describe("an access token as the bearer", () => {
  const bearer = createBearer("access_token", 5 * MINUTE);

  it("is the row's access token, with its own expiry", () => {
    const r = row({ accessToken: "at-1", accessTokenExpiresAt: NOW + 10 * MINUTE });
    expect(bearer.of(r)).toBe("at-1");
    expect(bearer.expiry(r)).toBe(NOW + 10 * MINUTE);
    expect(bearer.handOut(r)).toBe("at-1");
  });

  it("an empty one is never usable, even with an expiry ahead, and handing it out names the missing token", () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW });
    const none = row({ accessToken: "" });
    expect(bearer.usable(none, undefined)).toBe(false);
    const error = (() => {
      try {
        bearer.handOut(none);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(FdxAuthError);
    expect(error).toMatchObject({
      error: "no_access_token",
      message: expect.stringContaining('the provider sent no access token, and bearer: "access_token" hands one to data calls'),
    });
    expect(() => bearer.check({ accessToken: "" } as never)).toThrow(FdxAuthError);
    expect(() => bearer.check({ accessToken: "at" } as never)).not.toThrow();
  });

  it("one of unknown expiry (no expires_in) is used until a data call rejects it", () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW + 1_000 * MINUTE });
    const r = row({ accessTokenExpiresAt: 0 });
    expect(bearer.unknownExpiry(r)).toBe(true);
    expect(bearer.usable(r, undefined)).toBe(true);
    expect(bearer.usable(r, "at")).toBe(false);
  });

  it("its lifetime runs from the row's write: a 4-minute token is due after 2", () => {
    const r = row({ accessTokenExpiresAt: NOW + 4 * MINUTE });
    vi.useFakeTimers({ toFake: ["Date"], now: NOW + 2 * MINUTE - 1 });
    expect(bearer.usable(r, undefined)).toBe(true);
    vi.setSystemTime(NOW + 2 * MINUTE + 1);
    expect(bearer.usable(r, undefined)).toBe(false);
  });

  it("the id token's bearer refuses no token set for a missing access token", () => {
    expect(() => createBearer("id_token", 0).check({ accessToken: "" } as never)).not.toThrow();
  });
});
