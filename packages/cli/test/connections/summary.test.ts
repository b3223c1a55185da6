// What `connections list --json` and `connect --json` print of a stored row
// whose dates are hostile: a row is data another program or an IdP shaped.
import type { Connection } from "@fdxkit/client/auth";
import { describe, expect, it } from "vitest";
import { connectionSummary } from "../../src/commands/connect.js";
import { isoInstant } from "../../src/dates.js";

const row = (times: Partial<Pick<Connection, "expiresAt" | "updatedAt">>): Connection => ({
  id: "u1",
  status: "active",
  idToken: "secret-id",
  refreshToken: "secret-refresh",
  expiresAt: 1_750_000_000_000,
  accessToken: "",
  accessTokenExpiresAt: 0,
  accounts: ["A1"],
  subject: "s",
  connector: "bank",
  consentId: "c1",
  issuer: "https://idp.example",
  clientId: "client",
  createdAt: 0,
  updatedAt: 1_750_000_000_000,
  version: 1,
  ...times,
});

describe("isoInstant", () => {
  it.each([
    [1e303, null],
    [1e300 * 1000, null],
    [Number.NaN, null],
    [Number.POSITIVE_INFINITY, null],
    [-1e300, null],
    [8.64e15 + 1, null],
    ["2025-01-01", null],
    [8.64e15, "+275760-09-13T00:00:00.000Z"],
    [0, "1970-01-01T00:00:00.000Z"],
  ])("%s → %s", (value, expected) => {
    expect(isoInstant(value)).toBe(expected);
  });
});

describe("connectionSummary", () => {
  it("gives null for dates that are no dates, and never a token", () => {
    const summary = connectionSummary(row({ expiresAt: 1e300 * 1000, updatedAt: Number.NaN }));
    expect(summary).toEqual({ id: "u1", status: "active", connector: "bank", accounts: ["A1"], consentId: "c1", expiresAt: null, updatedAt: null });
    expect(JSON.stringify(summary)).not.toMatch(/secret/);
  });

  it("gives ISO 8601 for real dates", () => {
    expect(connectionSummary(row({}))).toMatchObject({ expiresAt: "2025-06-15T15:06:40.000Z", updatedAt: "2025-06-15T15:06:40.000Z" });
  });
});
