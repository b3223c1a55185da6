// readTokenAnswer: a refresh answer without an id token keeps the stored one, and its expiry.
import { describe, expect, it } from "vitest";
import { readTokenAnswer, type TokenChecks } from "../../src/auth/token-answer.js";

const checks = (exp: unknown): TokenChecks => ({
  clientId: "client-1",
  issuer: "https://idp.example",
  nonce: undefined,
  previous: undefined,
  refreshToken: "refresh-1",
  requireRefreshToken: false,
  kept: { idToken: "kept-id-token", claims: { sub: "user-sub-1", exp } },
  secrets: [],
});

describe("readTokenAnswer: a refresh answer that keeps the stored id token", () => {
  it("keeps the id token, the refresh token sent, and the id token's expiry in milliseconds", () => {
    const set = readTokenAnswer(200, { access_token: "at-2", token_type: "Bearer", expires_in: 300 }, checks(1_900_000_000));
    expect(set).toMatchObject({
      idToken: "kept-id-token",
      refreshToken: "refresh-1",
      expiresAt: 1_900_000_000_000,
      accessToken: "at-2",
      subject: "user-sub-1",
    });
  });

  it("reads the latest expiry a Date holds, and none (0) for an exp past it, not positive, or not a number", () => {
    const expiry = (exp: unknown) => readTokenAnswer(200, { access_token: "at-2", expires_in: 300 }, checks(exp)).expiresAt;
    expect(expiry(8.64e12)).toBe(8.64e15);
    expect(new Date(expiry(8.64e12)).toISOString()).toBe("+275760-09-13T00:00:00.000Z");
    for (const exp of [8.64e12 + 1, 1e13, 0, -5, "1900000000", undefined, null]) expect([exp, expiry(exp)]).toEqual([exp, 0]);
  });
});
