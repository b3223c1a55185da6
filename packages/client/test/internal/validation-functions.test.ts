// The input checks (internal/validation.ts) on their own: each predicate's
// edges, and the exact issue each check reports.
import { describe, expect, it } from "vitest";
import { FdxValidationError } from "../../src/index.js";
import { NOTIFICATION_CATEGORIES } from "../../src/schemas/enums.js";
import {
  checkFields,
  checkIds,
  idCheck,
  isCalendarDate,
  isCallbackUrl,
  subscriptionInputCheck,
  subscriptionUpdateCheck,
} from "../../src/internal/validation.js";

const issuesOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(FdxValidationError);
    return (error as FdxValidationError).issues;
  }
  throw new Error("accepted");
};

describe("isCalendarDate", () => {
  it.each(["2025-01-15", "2024-02-29", "0100-01-01", "9999-12-31"])("takes %s", (d) => expect(isCalendarDate(d)).toBe(true));
  it.each(["x2025-01-15", "2025-01-15x", "2025-01-15T00:00Z", "2025-01-15T00:00:00.000Z", "+002025-01-15", "2025-02-29", "0099-12-31", "2025-1-15", ""])(
    "refuses %j",
    (d) => expect(isCalendarDate(d)).toBe(false),
  );
});

describe("isCallbackUrl", () => {
  it.each([
    ["https://me.test/h", false, true],
    ["HTTPS://ME.TEST/h", false, true],
    ["http://localhost:3000/h", false, false],
    ["http://localhost:3000/h", true, true],
    ["http://127.0.0.1/h", true, true],
    ["http://[::1]:8080/h", true, true],
    ["http://me.test/h", true, false],
    ["ws://localhost/h", true, false],
    ["wss://me.test/h", false, false],
    ["ftp://me.test/h", false, false],
    ["https:", false, false],
    ["/relative", false, false],
  ])("%s (insecure allowed: %s) → %s", (url, insecure, ok) => expect(isCallbackUrl(url, insecure)).toBe(ok));
});

describe("checkFields", () => {
  const fields = { name: idCheck(), "note?": idCheck() };

  it("refuses what is not an object", () => {
    expect(checkFields(null, fields)).toEqual({ data: {}, issues: [{ path: "", message: "must be an object" }] });
    expect(checkFields([], fields).issues).toEqual([{ path: "", message: "must be an object" }]);
  });

  it("requires the fields without ?, lets the others be absent, and keeps only declared, present fields", () => {
    expect(checkFields({}, fields)).toEqual({ data: {}, issues: [{ path: "name", message: "is required" }] });
    expect(checkFields({ name: "a", note: undefined, extra: 1 }, fields)).toEqual({ data: { name: "a" }, issues: [] });
    expect(checkFields({ name: "a", note: "" }, fields)).toEqual({ data: { name: "a" }, issues: [{ path: "note", message: "must be a non-empty string" }] });
  });
});

describe("idCheck", () => {
  it.each([
    [42, "must be a string"],
    ["", "must be a non-empty string"],
    ["..", 'must not be "." or ".."'],
    ["a\uD800", "must be well-formed Unicode"],
    ["abcd", "must be at most 3 characters"],
  ])("refuses %j: %s", (value, message) => expect(idCheck(3)(value)).toBe(message));

  it("takes an id of exactly the maximum length, and any length without one", () => {
    expect(idCheck(3)("abc")).toBeUndefined();
    expect(idCheck()("a".repeat(10_000))).toBeUndefined();
  });

  it("checkIds names each bad id", () => {
    expect(issuesOf(() => checkIds({ a: "", b: "ok", c: "." }))).toEqual([
      { path: "a", message: "must be a non-empty string" },
      { path: "c", message: 'must not be "." or ".."' },
    ]);
  });
});

describe("subscription input", () => {
  const input = { category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://me.test/h" };

  it("names each bad field with what is wrong", () => {
    const check = subscriptionInputCheck(false);
    expect(
      issuesOf(() => check({ category: "NOPE", type: 3, callbackUrl: "http://me.test/h", effectiveDate: "2025-02-30", callbackEmail: "me..you@x.com" })),
    ).toEqual([
      { path: "category", message: `must be one of ${NOTIFICATION_CATEGORIES.join(", ")}` },
      { path: "type", message: expect.stringMatching(/^must be one of .*CONSENT_REVOKED/) },
      { path: "callbackUrl", message: "must be an absolute https: URL" },
      { path: "effectiveDate", message: "must be a real date (YYYY-MM-DD)" },
      { path: "callbackEmail", message: "must be an e-mail address" },
    ]);
    expect(issuesOf(() => subscriptionInputCheck(true)({ ...input, callbackUrl: "ws://localhost/h" }))).toEqual([
      { path: "callbackUrl", message: "must be an absolute https: URL, or http: to a loopback host (localhost, 127.0.0.0/8, [::1])" },
    ]);
  });

  it.each(["me@x.com!", "me..you@x.com", ".me@x.com", "me.@x.com", "me@x", "me@-x.com", "me@x.c"])("refuses the e-mail %j", (callbackEmail) => {
    expect(issuesOf(() => subscriptionInputCheck(false)({ ...input, callbackEmail }))).toEqual([
      { path: "callbackEmail", message: "must be an e-mail address" },
    ]);
  });

  it.each(["me@x.com", "first.last+tag@mail.example.co", "o'neil@x-y.org"])("takes the e-mail %j", (callbackEmail) => {
    expect(subscriptionInputCheck(false)({ ...input, callbackEmail })).toEqual({ ...input, callbackEmail });
  });

  it("an update must set at least one field, and says which", () => {
    const check = subscriptionUpdateCheck(false);
    expect(issuesOf(() => check({}))).toEqual([{ path: "", message: "must set at least one of callbackUrl, effectiveDate, callbackEmail" }]);
    expect(issuesOf(() => check({ other: 1 }))).toEqual([{ path: "", message: "must set at least one of callbackUrl, effectiveDate, callbackEmail" }]);
    expect(issuesOf(() => check({ callbackUrl: "nope" }))).toEqual([{ path: "callbackUrl", message: "must be an absolute https: URL" }]);
    expect(check({ effectiveDate: "2025-01-15" })).toEqual({ effectiveDate: "2025-01-15" });
  });
});
