import { describe, expect, it } from "vitest";
import { FdxAuthError, FdxConnectionStoreError, FdxReauthorizationRequiredError } from "../../src/auth/index.js";
import { FdxError } from "../../src/index.js";

describe("auth errors", () => {
  it("FdxAuthError reads as the OAuth code and description, and keeps its cause", () => {
    const cause = new Error("socket hang up");
    const error = new FdxAuthError({ error: "invalid_grant", errorDescription: "refresh token expired", status: 400, cause });
    expect(error).toBeInstanceOf(FdxError);
    expect(error.message).toBe("invalid_grant: refresh token expired");
    expect(error).toMatchObject({ error: "invalid_grant", errorDescription: "refresh token expired", status: 400 });
    expect(error.cause).toBe(cause);
    const bare = new FdxAuthError({ error: "access_denied" });
    expect(bare.message).toBe("access_denied");
    expect(bare).toMatchObject({ errorDescription: undefined, status: undefined });
  });

  it("FdxReauthorizationRequiredError names the connection and the reason", () => {
    const cause = new FdxAuthError({ error: "invalid_grant" });
    const error = new FdxReauthorizationRequiredError("user-42", "invalid_grant", { cause });
    expect(error.message).toBe('Connection "user-42" needs the user\'s authorization again (invalid_grant)');
    expect(error).toMatchObject({ connectionId: "user-42", reason: "invalid_grant" });
    expect(error.cause).toBe(cause);
  });

  it("FdxConnectionStoreError keeps the connection, reason and cause", () => {
    const cause = { name: "StoreDown" };
    const error = new FdxConnectionStoreError("the store failed", { connectionId: undefined, reason: "store_error", cause });
    expect(error.message).toBe("the store failed");
    expect(error).toMatchObject({ connectionId: undefined, reason: "store_error" });
    expect(error.cause).toBe(cause);
  });
});
