import { FdxError } from "@fdxkit/client";
import { describe, expect, it } from "vitest";
import { FdxPostgresError } from "../src/index.js";
import { wrapDatabaseError } from "../src/errors.js";
import { expectNoSecrets } from "./support.js";

// Shaped as node-postgres's DatabaseError and PGlite's error are: the values are in detail, message, where and params.
function driverError(code: string | undefined, message: string) {
  return Object.assign(new Error(message), {
    code,
    detail: "Failing row contains (a, 2, active, id-token-secret, refresh-token-secret, ...).",
    where: "SQL statement with refresh-token-secret",
    params: ["a", "refresh-token-secret"],
  });
}

describe("wrapDatabaseError", () => {
  it.each([
    ["57P01", "the server ended the connection"],
    ["08006", "the connection to the database failed"],
    ["28P01", "refused the credentials"],
    ["53300", "out of resources"],
    ["23505", "an integrity constraint"],
    ["22001", "refused a value"],
    ["22021", "NUL"],
    ["22P02", "another type"],
    ["42501", "lacks a privilege"],
    ["42883", "refused the statement"],
    ["25P02", "transaction state"],
    ["40001", "serialization failure or deadlock"],
    ["57014", "cancelled"],
    ["57P03", "cannot accept connections now"],
    ["3D000", "database does not exist"],
    ["23502", "NOT NULL"],
    ["XX000", "the database call failed"],
    ["ECONNRESET", "could not be reached (ECONNRESET)"],
  ])("describes %s without the driver's words", (code, words) => {
    const error = wrapDatabaseError(driverError(code, `invalid input "refresh-token-secret"`), "compareAndSet", "conn");
    expect(error).toBeInstanceOf(FdxPostgresError);
    expect(error).toBeInstanceOf(FdxError);
    expect(error.message).toContain(words);
    expect(error.message).toMatch(new RegExp(`\\[${code}\\]$`));
    expect(error.code).toBe(code);
    expectNoSecrets(error, ["refresh-token-secret", "id-token-secret"]);
  });

  it("keeps a driver message only when it is a known one without values", () => {
    expect(wrapDatabaseError(driverError(undefined, "Connection terminated unexpectedly"), "get", "t").message).toBe(
      'PostgreSQL store: get on table "t": the database call failed (Connection terminated unexpectedly)',
    );
    expect(wrapDatabaseError(driverError(undefined, "value refresh-token-secret broke"), "get", "t").message).toBe(
      'PostgreSQL store: get on table "t": the database call failed',
    );
    // A code that is not a code (a driver putting anything there) is dropped too.
    expect(wrapDatabaseError(driverError("refresh token secret!", "x"), "get", "t").code).toBeUndefined();
    expect(wrapDatabaseError("a string thrown", "get", "t").code).toBeUndefined();
    expect(wrapDatabaseError(null, "get", "t").message).toContain("the database call failed");
  });

  it("names a missing column only when it is one of the store's", () => {
    expect(wrapDatabaseError(driverError("42703", 'column "lease_until" does not exist'), "get", "t", ["lease_until"]).column).toBe("lease_until");
    const other = wrapDatabaseError(driverError("42703", 'column "refresh_token_secret" does not exist'), "get", "t", ["lease_until"]);
    expect(other.column).toBeUndefined();
    expect(other.message).toContain("lacks a column this store needs");
    expectNoSecrets(other, ["refresh_token_secret"]);
  });

  it("passes its own error through, and serializes its fields", () => {
    const own = new FdxPostgresError("m", { code: "X", operation: "list", table: "t" });
    expect(wrapDatabaseError(own, "get", "u")).toBe(own);
    expect(JSON.parse(JSON.stringify(own))).toEqual({ name: "FdxPostgresError", message: "m", code: "X", operation: "list", table: "t" });
    expect(own.name).toBe("FdxPostgresError");
  });
});
