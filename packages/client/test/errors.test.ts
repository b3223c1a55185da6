import { describe, expect, it } from "vitest";
import {
  FdxAbortError,
  FdxApiError,
  FdxConnectionError,
  FdxError,
  FdxErrorCode,
  FdxRateLimitError,
  FdxTimeoutError,
} from "../src/index.js";

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
    });
  });
});
