import { describe, expect, it } from "vitest";
import { FdxError, FdxWebhookError } from "../../src/core/error.js";
import { parseNotification } from "../../src/webhooks/index.js";
import { consentNotification, copyOf, maintenanceNotification, type Reshapable } from "./fixtures.js";

function rejection(input: unknown): FdxWebhookError {
  try {
    parseNotification(input);
  } catch (error) {
    expect(error).toBeInstanceOf(FdxWebhookError);
    expect(error).toBeInstanceOf(FdxError);
    return error as FdxWebhookError;
  }
  throw new Error("parseNotification accepted the input");
}

describe("parseNotification: valid notifications", () => {
  it.each([
    ["maintenance", maintenanceNotification],
    ["consent", consentNotification],
  ])("keeps every member of a full %s notification", (_, full) => {
    expect(parseNotification(JSON.stringify(full))).toStrictEqual(copyOf(full));
  });

  const json = JSON.stringify(consentNotification);
  const bytes = new TextEncoder().encode(json);
  it.each([
    ["a string", json],
    ["a Uint8Array", bytes],
    ["a Node Buffer", Buffer.from(json)],
    ["an ArrayBuffer", bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)],
    ["a view on part of a larger buffer", new Uint8Array(new TextEncoder().encode(`xx${json}yy`).buffer, 2, bytes.byteLength)],
    ["a DataView", new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
    ["an already-parsed object", copyOf(consentNotification)],
    ["a string with a byte order mark", `\uFEFF${json}`],
    ["UTF-8 bytes with a byte order mark", new Uint8Array([0xef, 0xbb, 0xbf, ...bytes])],
  ])("accepts %s", (_, input) => {
    expect(parseNotification(input)).toStrictEqual(copyOf(consentNotification));
  });

  it("decodes UTF-8 text beyond ASCII", () => {
    const n = copyOf(maintenanceNotification);
    n.publisher.name = "Banque Élan — 銀行 🏦";
    expect(parseNotification(Buffer.from(JSON.stringify(n))).publisher?.name).toBe("Banque Élan — 銀行 🏦");
  });

  it("needs only category, type and notificationPayload", () => {
    expect(parseNotification('{"category":"CONSENT","type":"CONSENT_UPDATED","notificationPayload":{}}')).toStrictEqual({
      category: "CONSENT",
      type: "CONSENT_UPDATED",
      notificationPayload: {},
    });
  });

  it("accepts enum values this SDK does not know yet", () => {
    const n = copyOf(consentNotification);
    n.category = "FRAUD";
    n.type = "ACCOUNT_CLOSED";
    n.notificationPayload.idType = "ACCOUNT";
    n.url.action = "QUERY";
    const parsed = parseNotification(n);
    expect(parsed.category).toBe("FRAUD");
    expect(parsed.type).toBe("ACCOUNT_CLOSED");
    expect(parsed.notificationPayload.idType).toBe("ACCOUNT");
    expect(parsed.url?.action).toBe("QUERY");
  });

  it("keeps unknown members at every level", () => {
    const n = copyOf(maintenanceNotification);
    n.schemaVersion = "1.2";
    n.extensions = { priority: 3, tags: ["a", null, true] };
    n.subscriber.contact = { email: "ops@example.com" };
    n.notificationPayload.severity = "HIGH";
    n.notificationPayload.customFields[0].unit = "none";
    n.notificationPayload.url.title = "Details";
    n.url.method = "GET";
    expect(parseNotification(JSON.stringify(n))).toStrictEqual(n);
  });

  it("turns customFields given as one object (FDX 5.2's shape) into a one-element array, unknown members kept", () => {
    const n = copyOf(consentNotification);
    n.notificationPayload.customFields = { name: "reason", value: "user request", source: "portal" };
    const parsed = parseNotification(JSON.stringify(n));
    expect(parsed.notificationPayload.customFields).toStrictEqual([{ name: "reason", value: "user request", source: "portal" }]);
    expect({ ...parsed, notificationPayload: { ...parsed.notificationPayload, customFields: undefined } }).toStrictEqual({
      ...n,
      notificationPayload: { ...n.notificationPayload, customFields: undefined },
    });
    // The object is checked like an array element, and a problem is named at that element.
    n.notificationPayload.customFields = { name: "reason", value: 3 };
    expect(() => parseNotification(n)).toThrow(
      expect.objectContaining({ issues: [{ path: "notificationPayload.customFields.0.value", message: "must be a string" }] }),
    );
  });

  it("returns a copy: changing the result leaves the parsed object as it was", () => {
    const input = copyOf(consentNotification);
    const parsed = parseNotification(input);
    parsed.notificationPayload.id = "changed";
    expect(input.notificationPayload.id).toBe("cns-7f3e2a");
  });

  it("treats an undefined member of a parsed object as absent", () => {
    const input = { ...copyOf(consentNotification), notificationId: undefined };
    expect(parseNotification(input)).not.toHaveProperty("notificationId");
  });
});

describe("parseNotification: rejections", () => {
  it.each([
    ["empty text", ""],
    ["truncated JSON", JSON.stringify(consentNotification).slice(0, -1)],
    ["plain text", "hello"],
    ["JSON with a trailing comma", '{"category":"CONSENT",}'],
    ["empty bytes", new Uint8Array(0)],
  ])("is not JSON: %s", (_, input) => {
    expect(rejection(input).issues).toEqual([{ path: "", message: "body is not valid JSON" }]);
  });

  it("is not UTF-8", () => {
    const bytes = new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    expect(rejection(bytes).issues).toEqual([{ path: "", message: "body is not valid UTF-8" }]);
  });

  it("never quotes the body in the error", () => {
    const error = rejection('{"category": secret-token-value');
    expect(error.message).not.toContain("secret-token-value");
    expect(JSON.stringify(error)).not.toContain("secret-token-value");
  });

  it.each([
    ["null", "null"],
    ["a number", "42"],
    ["a string", '"CONSENT"'],
    ["a boolean", "true"],
    ["an array", JSON.stringify([consentNotification])],
  ])("is not an object: %s", (_, input) => {
    expect(rejection(input).issues).toEqual([{ path: "", message: "must be an object" }]);
  });

  it.each([undefined, null, 42, true, Symbol("x"), 10n, () => consentNotification])("rejects the non-object value %s given directly", (value) => {
    expect(rejection(value).issues).toHaveLength(1);
  });

  it.each(["category", "type", "notificationPayload"])("misses required member %s", (member) => {
    const n = copyOf(consentNotification);
    delete n[member];
    expect(rejection(n).issues).toEqual([{ path: member, message: "is required" }]);
  });

  it("misses the href of a link", () => {
    const n = copyOf(consentNotification);
    delete n.notificationPayload.url.href;
    expect(rejection(n).issues).toEqual([{ path: "notificationPayload.url.href", message: "is required" }]);
  });

  it.each([
    ["category", (n: Reshapable) => (n.category = 1), "must be a string"],
    ["type", (n: Reshapable) => (n.type = null), "must be a string"],
    ["notificationPayload", (n: Reshapable) => (n.notificationPayload = "cns-7f3e2a"), "must be an object"],
    ["notificationPayload.id", (n: Reshapable) => (n.notificationPayload.id = 7), "must be a string"],
    ["notificationPayload.idType", (n: Reshapable) => (n.notificationPayload.idType = ["CONSENT"]), "must be a string"],
    [
      "notificationPayload.customFields",
      (n: Reshapable) => (n.notificationPayload.customFields = "status=revoked"),
      "must be an array of name/value objects, or one such object",
    ],
    [
      "notificationPayload.customFields",
      (n: Reshapable) => (n.notificationPayload.customFields = null),
      "must be an array of name/value objects, or one such object",
    ],
    ["notificationPayload.customFields.0", (n: Reshapable) => (n.notificationPayload.customFields[0] = "x"), "must be an object"],
    ["notificationPayload.customFields.0.value", (n: Reshapable) => (n.notificationPayload.customFields[0].value = 3), "must be a string"],
    ["notificationPayload.url.types.1", (n: Reshapable) => n.notificationPayload.url.types.push(5), "must be a string"],
    ["sentOn", (n: Reshapable) => (n.sentOn = 1742030531000), "must be a string"],
    ["subscriber.name", (n: Reshapable) => (n.subscriber.name = { first: "a" }), "must be a string"],
    ["publisher", (n: Reshapable) => (n.publisher = "Example Bank"), "must be an object"],
    ["url.href", (n: Reshapable) => (n.url.href = null), "must be a string"],
    ["url.types.1", (n: Reshapable) => n.url.types.push(5), "must be a string"],
    ["url.action", (n: Reshapable) => (n.url.action = 1), "must be a string"],
  ])("has a wrong type at %s", (path, change, message) => {
    const n = copyOf(consentNotification);
    change(n);
    expect(rejection(JSON.stringify(n)).issues).toEqual([{ path, message }]);
  });

  it("names every problem at once", () => {
    const error = rejection({ category: 1, notificationPayload: { id: 2 } });
    expect(error.issues).toEqual([
      { path: "category", message: "must be a string" },
      { path: "type", message: "is required" },
      { path: "notificationPayload.id", message: "must be a string" },
    ]);
    expect(error.message).toContain("notificationPayload.id: must be a string");
  });

  it("rejects nesting deeper than any notification needs", () => {
    const n = copyOf(consentNotification);
    n.extra = JSON.parse("[".repeat(100) + "]".repeat(100));
    expect(rejection(JSON.stringify(n)).issues[0]?.message).toMatch(/nested deeper/);
    const deep = "[".repeat(200_000) + "]".repeat(200_000);
    expect(rejection(deep).issues[0]?.message).toMatch(/nested deeper/);
  });

  it("accepts a body 64 levels deep, and rejects one 65 levels deep, naming no path", () => {
    // The notification is level 1, `extra` level 2: 63 nested arrays reach level 64.
    const nestedBody = (arrays: number) => {
      const n = copyOf(consentNotification);
      n.extra = JSON.parse("[".repeat(arrays) + "]".repeat(arrays));
      return JSON.stringify(n);
    };
    expect(parseNotification(nestedBody(63))).toHaveProperty("extra");
    expect(rejection(nestedBody(64)).issues).toEqual([{ path: "", message: "body is nested deeper than 64 levels" }]);
  });

  it("rejects a cyclic object instead of overflowing the stack", () => {
    const n = copyOf(consentNotification);
    n.self = n;
    expect(rejection(n).issues[0]?.message).toMatch(/nested deeper/);
  });

  it.each([
    ["notificationPayload.id", (n: Reshapable) => (n.notificationPayload.id = 10n)],
    ["notificationPayload.customFields.0.value", (n: Reshapable) => (n.notificationPayload.customFields[0].value = Symbol("v"))],
    ["extra.1", (n: Reshapable) => (n.extra = [1, () => 1])],
  ])("names the path of a value JSON cannot hold, given directly: %s", (path, change) => {
    const n = copyOf(consentNotification);
    change(n);
    expect(rejection(n).issues).toEqual([{ path, message: "is not a JSON value" }]);
  });

  it("rejects an object whose getter throws", () => {
    const n = copyOf(consentNotification);
    Object.defineProperty(n, "boom", {
      enumerable: true,
      get: () => {
        throw new Error("getter");
      },
    });
    expect(rejection(n).issues).toEqual([{ path: "", message: "body could not be read as JSON" }]);
  });
});

// A hostile sender's body of many bad fields: at most 20 issues, and no more
// work than the copy and one scan (zod kept an issue per field — hundreds of
// megabytes — and threw RangeError past some 100 000).
describe("parseNotification: a body of many bad fields", () => {
  const withFields = (customFields: unknown, url?: unknown) =>
    JSON.stringify({
      ...consentNotification,
      notificationPayload: { ...consentNotification.notificationPayload, customFields, ...(url !== undefined && { url }) },
    });

  it("names the first 20 of 100 000 bad customFields, with their indexes, and throws FdxWebhookError (not RangeError)", () => {
    const error = rejection(withFields(Array.from({ length: 100_000 }, () => 1)));
    expect(error.issues).toHaveLength(20);
    expect(error.issues.map((i) => i.path)).toEqual(Array.from({ length: 20 }, (_, i) => `notificationPayload.customFields.${i}`));
  });

  it("maps the indexes of bad members back past good ones, in every long array", () => {
    const fields = Array.from({ length: 50_000 }, (_, i) => ({ name: `n${i}`, value: "v" }));
    fields[30_000] = { name: "x", value: 5 } as unknown as (typeof fields)[number];
    fields[49_999] = "no" as unknown as (typeof fields)[number];
    const types = ["application/pdf", 7, "text/plain", null];
    const error = rejection(withFields(fields, { href: "/x", types }));
    expect(error.issues).toEqual([
      { path: "notificationPayload.customFields.30000.value", message: "must be a string" },
      { path: "notificationPayload.customFields.49999", message: "must be an object" },
      { path: "notificationPayload.url.types.1", message: "must be a string" },
      { path: "notificationPayload.url.types.3", message: "must be a string" },
    ]);
  });

  // Each array's indexes are mapped back through its own list only, even when
  // all three arrays are long, bad, and cut down at once.
  it("maps each array's indexes through its own bad members when all three arrays are bad", () => {
    const n = copyOf(consentNotification);
    const field = { name: "reason", value: "user request" };
    n.url = { href: "/top", types: ["a", "b", "c", 1, "d", "e", 2] };
    n.notificationPayload.url = { href: "/x", types: ["a", 3, "b"] };
    n.notificationPayload.customFields = [field, field, field, field, field, 4, field, field, field, "x"];
    expect(rejection(n).issues).toEqual([
      { path: "notificationPayload.customFields.5", message: "must be an object" },
      { path: "notificationPayload.customFields.9", message: "must be an object" },
      { path: "notificationPayload.url.types.1", message: "must be a string" },
      { path: "url.types.3", message: "must be a string" },
      { path: "url.types.6", message: "must be a string" },
    ]);
  });

  // The bad members are looked for past the first 20 members, not among them only.
  it.each([
    ["url.types", (n: Reshapable, members: unknown[]) => (n.url.types = members)],
    ["notificationPayload.url.types", (n: Reshapable, members: unknown[]) => (n.notificationPayload.url.types = members)],
    ["notificationPayload.customFields", (n: Reshapable, members: unknown[]) => (n.notificationPayload.customFields = members)],
  ])("names a bad member of %s that follows 25 good ones, at its own index", (path, set) => {
    const n = copyOf(consentNotification);
    const good = path.endsWith("types") ? "application/json" : { name: "reason", value: "user request" };
    set(n, [...Array.from({ length: 25 }, () => good), 404, good]);
    expect(rejection(n).issues).toEqual([{ path: `${path}.25`, message: path.endsWith("types") ? "must be a string" : "must be an object" }]);
  });

  // Past some 100 000 issues zod's own `push(...issues)` overflows the stack:
  // each long array must be cut down before zod sees it.
  it.each([
    ["url.types", (n: Reshapable, members: unknown[]) => (n.url.types = members)],
    ["notificationPayload.url.types", (n: Reshapable, members: unknown[]) => (n.notificationPayload.url.types = members)],
    ["notificationPayload.customFields", (n: Reshapable, members: unknown[]) => (n.notificationPayload.customFields = members)],
  ])("names the first 20 of a million bad members of %s, and throws FdxWebhookError (not RangeError)", (path, set) => {
    const n = copyOf(consentNotification);
    set(
      n,
      Array.from({ length: 1_000_000 }, () => 0),
    );
    const error = rejection(JSON.stringify(n));
    expect(error.issues.map((i) => i.path)).toEqual(Array.from({ length: 20 }, (_, i) => `${path}.${i}`));
  });

  it("keeps at most 20 issues from wherever they come", () => {
    const many = {
      ...consentNotification,
      category: 1,
      type: 2,
      notificationId: 3,
      sentOn: 4,
      notificationPayload: { id: 5, idType: 6, customFields: Array(100).fill(0) },
    };
    expect(rejection(many).issues).toHaveLength(20);
    expect(rejection(many).issues[0]).toEqual({ path: "notificationId", message: "must be a string" });
  });
});
