// The redaction functions themselves (core/errors/redact.ts): which forms of
// a secret are found, where a short one is not, and what of an error's cause
// is kept. The end-to-end cases (a server or a custom fetch echoing the
// token) are in redact.test.ts.
import { describe, expect, it } from "vitest";
import { redactCause, redactText, redactValue, secretForms } from "../../../src/core/errors/redact.js";

describe("secretForms", () => {
  it("is nothing for an empty secret", () => {
    expect(secretForms("")).toEqual([]);
  });

  it("lists the secret as is, JSON-escaped (slashes too), URL- and form-encoded, each once", () => {
    expect(secretForms('a/b c+"d')).toEqual(['a/b c+"d', 'a/b c+\\"d', 'a\\/b c+\\"d', "a%2Fb%20c%2B%22d", "a%2Fb+c%2B%22d"]);
    expect(secretForms("plain-token")).toEqual(["plain-token"]);
  });
});

describe("redactText", () => {
  it("replaces a secret of 8 characters or more wherever it appears", () => {
    expect(redactText("xx12345678yy and 12345678", ["12345678"])).toBe("xx[redacted]yy and [redacted]");
  });

  it("replaces a shorter secret only as a whole word", () => {
    expect(redactText("abc1234 1234567 x1234567", ["1234567"])).toBe("abc1234 [redacted] x1234567");
    expect(redactText("t is not in tea; t", ["t"])).toBe("[redacted] is not in tea; [redacted]");
  });

  it("takes a short secret's characters literally", () => {
    expect(redactText("aXbbc a.b*c", ["a.b*c"])).toBe("aXbbc [redacted]");
    expect(redactText("(x) [y]", ["(x)", "[y]"])).toBe("[redacted] [redacted]");
  });

  it("leaves text without a secret as it is", () => {
    expect(redactText("nothing here", ["secret-value"])).toBe("nothing here");
  });
});

describe("redactValue", () => {
  it("redacts strings, keys and nested values, and keeps everything else", () => {
    const secrets = ["s3cr3t-token"];
    expect(redactValue({ "s3cr3t-token": ["a s3cr3t-token", 1, null, { deep: "s3cr3t-token" }], ok: true }, secrets)).toEqual({
      "[redacted]": ["a [redacted]", 1, null, { deep: "[redacted]" }],
      ok: true,
    });
  });
});

describe("redactCause", () => {
  const secrets = ["s3cr3t-token"];

  it("keeps a cause that names no secret as the very same object", () => {
    const cause = new TypeError("fetch failed");
    expect(redactCause(cause, secrets)).toBe(cause);
    expect(redactCause(cause, [])).toBe(cause);
  });

  it("copies an error that names a secret: name, message, stack and plain own fields redacted; objects dropped", () => {
    const cause = Object.assign(new TypeError("refused Bearer s3cr3t-token"), { code: "ECONNREFUSED", errno: -111, header: "s3cr3t-token", request: { h: 1 }, nothing: null });
    const copy = redactCause(cause, secrets) as Error & Record<string, unknown>;
    expect(copy).not.toBe(cause);
    expect(copy).toBeInstanceOf(Error);
    expect(copy.name).toBe("TypeError");
    expect(copy.message).toBe("refused Bearer [redacted]");
    expect(copy.stack).toContain("refused Bearer [redacted]");
    expect(copy.stack).not.toContain("s3cr3t-token");
    expect({ code: copy.code, errno: copy.errno, header: copy.header, nothing: copy.nothing }).toEqual({ code: "ECONNREFUSED", errno: -111, header: "[redacted]", nothing: null });
    expect("request" in copy).toBe(false);
  });

  it("gives an error without a stack one of its name and message", () => {
    const cause = new Error("saw s3cr3t-token");
    cause.name = "VaultError";
    delete (cause as { stack?: string }).stack;
    expect((redactCause(cause, secrets) as Error).stack).toBe("VaultError: saw [redacted]");
  });

  it("looks down the cause chain: a secret there makes a copy, with the chain redacted", () => {
    const cause = new Error("outer", { cause: new Error("inner s3cr3t-token") });
    const copy = redactCause(cause, secrets) as Error;
    expect(copy).not.toBe(cause);
    expect(copy.message).toBe("outer");
    expect((copy.cause as Error).message).toBe("inner [redacted]");
  });

  it("finds a secret in a cause that is an object, a string or a number, and drops such a cause", () => {
    expect(redactCause({ headers: { authorization: "Bearer s3cr3t-token" } }, secrets)).toBeUndefined();
    expect(redactCause("s3cr3t-token", secrets)).toBeUndefined();
    expect(redactCause(12345678, ["12345678"])).toBeUndefined();
    const clean = { headers: { accept: "application/json" } };
    expect(redactCause(clean, secrets)).toBe(clean);
  });

  it("drops a cause it cannot serialise, as it cannot show it clean", () => {
    const cyclic: Record<string, unknown> = { name: "x" };
    cyclic.self = cyclic;
    expect(redactCause(cyclic, secrets)).toBeUndefined();
  });

  it("keeps four causes deep and drops what lies further, where no one looked for the secret", () => {
    let chain: Error = new Error("deepest s3cr3t-token");
    for (let i = 5; i >= 0; i--) chain = new Error(`level ${i}`, { cause: chain });
    const copy = redactCause(chain, secrets) as Error;
    const messages: string[] = [];
    for (let e: unknown = copy; e instanceof Error; e = e.cause) messages.push(e.message);
    expect(messages).toEqual(["level 0", "level 1", "level 2", "level 3", "level 4"]);
    expect(JSON.stringify(messages)).not.toContain("s3cr3t");
  });
});
