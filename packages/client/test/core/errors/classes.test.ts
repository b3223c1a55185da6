import { describe, expect, it } from "vitest";
import {
  FdxAbortError,
  FdxApiError,
  FdxConnectionError,
  FdxError,
  FdxErrorCode,
  FdxRateLimitError,
  FdxTimeoutError,
} from "../../../src/index.js";

describe("FdxError family", () => {
  it("names each error after its class and keeps the class chain", () => {
    const e = new FdxTimeoutError("timed out");
    expect(e.name).toBe("FdxTimeoutError");
    expect(e).toBeInstanceOf(FdxConnectionError);
    expect(e).toBeInstanceOf(FdxError);
    expect(e).toBeInstanceOf(Error);
    expect(e).not.toBeInstanceOf(FdxApiError);
  });

  it("recognises instances made by another copy of the classes (dual-package hazard)", () => {
    // A structurally separate object carrying the same brand, as the CJS build's instances do.
    const foreign = Object.defineProperty(new Error("x"), Symbol.for("fdxkit.error.kinds"), {
      value: ["FdxRateLimitError", "FdxApiError", "FdxError"],
    });
    expect(foreign instanceof FdxRateLimitError).toBe(true);
    expect(foreign instanceof FdxApiError).toBe(true);
    expect(foreign instanceof FdxConnectionError).toBe(false);
    expect(FdxApiError.is(foreign)).toBe(true);
    expect(FdxApiError.is(new Error("plain"))).toBe(false);
  });

  it("answers instanceof false for primitives, null and undefined", () => {
    for (const value of [null, undefined, "FdxError", 42, Symbol.for("fdxkit.error.kinds")] as unknown[]) {
      expect(value instanceof FdxError).toBe(false);
      expect(FdxError.is(value)).toBe(false);
    }
  });

  it("keeps the fields, in order, and no cause when there is none", () => {
    const e = new FdxRateLimitError({
      status: 429,
      code: "1207",
      message: "slow down",
      debugMessage: undefined,
      body: {},
      headers: {},
      method: "GET",
      url: "https://x.test/",
      interactionId: "iid-1",
      retryAfterMs: 1000,
    });
    expect(Object.keys(e)).toEqual(["name", "status", "code", "debugMessage", "body", "headers", "method", "url", "interactionId", "retryAfterMs"]);
    expect("cause" in e).toBe(false);
    expect(new FdxConnectionError("down", { cause: 1 }).cause).toBe(1);
    expect(Object.keys(e.toJSON())).toEqual(["name", "message", "status", "code", "debugMessage", "body", "headers", "method", "url", "interactionId", "retryAfterMs"]);
    // `cause` may hold a platform error: never serialised.
    expect(JSON.parse(JSON.stringify(new FdxConnectionError("down", { cause: new Error("inner") })))).toEqual({ name: "FdxConnectionError", message: "down", interactionId: undefined });
  });

  it("gives abort errors the platform name AbortError", () => {
    expect(new FdxAbortError().name).toBe("AbortError");
  });

  it("holds the FDX contract codes as strings", () => {
    expect(FdxErrorCode).toEqual({
      InvalidInput: "401",
      Unauthorized: "1205",
      MethodNotAllowed: "1206",
      TooManyRequests: "1207",
      InternalServerError: "500",
      VersionNotSupported: "1106",
      ScheduledMaintenance: "503",
      NotFound: "NotFound",
      CustomerNotAuthorized: "602",
    });
  });
});
