import { describe, expect, it } from "vitest";
import { isSafeEndpoint } from "../../src/auth/auth-client.js";
import { checkInteger, httpUrl, integerMessage, isIntegerAtLeast, isLoopbackHost } from "../../src/internal/checks.js";
import { isCallbackUrl } from "../../src/internal/validation.js";

describe("one loopback rule: 127.0.0.0/8, localhost and [::1]", () => {
  const loopback = ["http://localhost:3000/cb", "http://127.0.0.1/cb", "http://127.0.0.2:8080/cb", "http://127.255.255.254/cb", "http://[::1]:9/cb"];
  const elsewhere = ["http://128.0.0.1/cb", "http://127.example.com/cb", "http://10.0.0.1/cb", "http://[::2]/cb", "http://localhost.example.com/cb"];

  it.each(loopback)("%s: a callback URL with allowInsecureCallbackUrls, and an IdP endpoint", (url) => {
    expect(isCallbackUrl(url, true)).toBe(true);
    expect(isCallbackUrl(url, false)).toBe(false);
    expect(isSafeEndpoint(url)).toBe(true);
  });

  it.each(elsewhere)("%s: refused by both callers", (url) => {
    expect(isCallbackUrl(url, true)).toBe(false);
    expect(isSafeEndpoint(url)).toBe(false);
  });

  it("reads the host as the URL parser spells it", () => {
    expect(isLoopbackHost(new URL("http://127.1/").hostname)).toBe(true);
    expect(isLoopbackHost("::1")).toBe(false);
  });
});

describe("integer at least N", () => {
  it("takes safe integers from min up, and nothing coerced", () => {
    expect(isIntegerAtLeast(0, 0)).toBe(true);
    expect(isIntegerAtLeast(1, 1)).toBe(true);
    for (const bad of [-1, 0.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1, "1", null, undefined]) expect(isIntegerAtLeast(bad, 0)).toBe(false);
    expect(isIntegerAtLeast(0, 1)).toBe(false);
  });

  it("has one message, naming the bound", () => {
    const issues: { path: string; message: string }[] = [];
    checkInteger(5, 1, "a", issues);
    checkInteger(9, 10, "b", issues);
    expect(issues).toEqual([{ path: "b", message: "must be an integer >= 10" }]);
    expect(integerMessage(0)).toBe("must be an integer >= 0");
  });
});

describe("http(s) URL without credentials", () => {
  it("parses http and https URLs", () => {
    expect(httpUrl("https://x.test/a?b=1")?.href).toBe("https://x.test/a?b=1");
    expect(httpUrl("http://x.test")?.href).toBe("http://x.test/");
  });

  it.each(["https://user:pw@x.test/", "https://user@x.test/", "ftp://x.test/", "/relative", "", 7, undefined])("refuses %s", (value) => {
    expect(httpUrl(value)).toBeUndefined();
  });
});
