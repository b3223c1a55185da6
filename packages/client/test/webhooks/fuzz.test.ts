import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { FdxWebhookError } from "../../src/core/error.js";
import { notificationSchema } from "../../src/schemas/notification.js";
import { parseNotification } from "../../src/webhooks/index.js";
import { z } from "zod/mini";
import { consentNotification, copyOf } from "./fixtures.js";

const prototypeKeys = () => Object.getOwnPropertyNames(Object.prototype).sort();
const cleanPrototypeKeys = prototypeKeys();

function assertPrototypeUntouched(): void {
  expect(prototypeKeys()).toEqual(cleanPrototypeKeys);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

/** Parses or throws FdxWebhookError; anything else thrown fails the property. */
function outcome(input: unknown): "valid" | "rejected" {
  try {
    const n = parseNotification(input);
    // A value that passed must really satisfy the schema.
    expect(z.safeParse(notificationSchema, n).success).toBe(true);
    return "valid";
  } catch (error) {
    if (error instanceof FdxWebhookError) {
      expect(error.issues.length).toBeGreaterThan(0);
      return "rejected";
    }
    throw error;
  }
}

// Keys that attack prototypes, mixed into the generated objects.
const key = fc.oneof(
  { weight: 4, arbitrary: fc.string() },
  { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty") },
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string(),
    fc.constantFrom("MAINTENANCE", "CONSENT", "SERVICE", "CONSENT_REVOKED", ""),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(key, tie("value"), { maxKeys: 5 }),
  ),
})).value;

// Notification-shaped values, so many runs get past the top-level checks.
const nearNotification = fc.record(
  {
    category: fc.oneof(fc.constantFrom("MAINTENANCE", "CONSENT"), fc.string(), json),
    type: fc.oneof(fc.constantFrom("SERVICE", "CONSENT_REVOKED"), fc.string(), json),
    notificationPayload: fc.oneof(
      fc.record(
        {
          id: fc.oneof(fc.string(), json),
          idType: fc.oneof(fc.constantFrom("MAINTENANCE", "CONSENT"), json),
          customFields: fc.oneof(fc.array(fc.record({ name: fc.string(), value: fc.oneof(fc.string(), json) }), { maxLength: 3 }), json),
          url: fc.oneof(fc.record({ href: fc.string(), action: fc.oneof(fc.string(), json) }, { requiredKeys: [] }), json),
          ["__proto__"]: fc.dictionary(fc.string(), json, { maxKeys: 2 }),
        },
        { requiredKeys: [] },
      ),
      json,
    ),
    subscriber: fc.oneof(fc.dictionary(fc.constantFrom("name", "type", "registry", "__proto__"), json), json),
    constructor: fc.record({ prototype: fc.dictionary(fc.string(), json, { maxKeys: 2 }) }),
    extra: json,
  },
  { requiredKeys: [] },
);

// 10,000 runs each in the suite; the mutation run (mutation/vitest.config.ts)
// asks for fewer, as every mutant of the webhook modules re-runs these.
const numRuns = Number(process.env.FDXKIT_FUZZ_RUNS ?? 10_000);

afterEach(assertPrototypeUntouched);

describe("parseNotification under fuzzing", () => {
  it("answers arbitrary JSON values (parsed and as text) with a notification or FdxWebhookError only", () => {
    fc.assert(
      fc.property(json, (value) => {
        outcome(value);
        outcome(JSON.stringify(value));
        assertPrototypeUntouched();
      }),
      { numRuns },
    );
  });

  it("answers notification-shaped values, including hostile keys, the same way", () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(nearNotification, (value) => {
        seen.add(outcome(JSON.stringify(value)));
        seen.add(outcome(value));
        assertPrototypeUntouched();
      }),
      // A valid notification first: with the mutation run's few hundred runs the generator may produce none.
      { numRuns, examples: [[consentNotification]] },
    );
    // Both outcomes occurred, so the property exercised the success path too.
    expect(seen).toEqual(new Set(["valid", "rejected"]));
  });

  it("answers arbitrary strings and bytes the same way", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.json()), (text) => {
        outcome(text);
        assertPrototypeUntouched();
      }),
      { numRuns },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        outcome(bytes);
        outcome(bytes.buffer);
      }),
      { numRuns },
    );
  });
});

describe("prototype pollution payloads", () => {
  const base = JSON.stringify(consentNotification).slice(1, -1);
  const payloads = [
    ["__proto__ first", `{"__proto__":{"polluted":1},${base}}`],
    ["__proto__ last", `{${base},"__proto__":{"polluted":1}}`],
    ["constructor.prototype", `{"constructor":{"prototype":{"polluted":1}},${base}}`],
    [
      "both inside the payload",
      `{${base.replace('"notificationPayload":{', '"notificationPayload":{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},')}}`,
    ],
    ["both inside an array of an unknown member", `{${base},"extra":[{"__proto__":{"polluted":1}},{"constructor":{"prototype":{"polluted":1}}}]}`],
    ["__proto__ inside a party", `{${base},"subscriber":{"__proto__":{"name":"polluted","polluted":1}}}`],
  ];

  it.each(payloads)("never reaches Object.prototype: %s", (_, payload) => {
    const n = parseNotification(payload) as unknown as Record<string, unknown>;
    assertPrototypeUntouched();
    expect(Object.getPrototypeOf(n)).toBe(Object.prototype);
    expect(n.polluted).toBeUndefined();
    expect(Object.getPrototypeOf(n.notificationPayload)).toBe(Object.prototype);
    expect((n.notificationPayload as Record<string, unknown>).polluted).toBeUndefined();
    // The attack keys are gone at every depth, so even a naive deep merge of the result is harmless.
    expect(JSON.stringify(n)).not.toMatch(/__proto__|constructor|prototype/);
    naiveMerge({}, n);
    assertPrototypeUntouched();
  });

  it("drops the attack keys from an already-parsed object too", () => {
    const input = copyOf(consentNotification);
    Object.defineProperty(input, "__proto__", { value: { polluted: 1 }, enumerable: true });
    input.constructor = { prototype: { polluted: 1 } };
    const n = parseNotification(input);
    expect(Object.keys(n)).not.toContain("__proto__");
    expect(Object.keys(n)).not.toContain("constructor");
    naiveMerge({}, n);
    assertPrototypeUntouched();
  });

  it("still requires the members an attacker hid behind __proto__", () => {
    const hidden = JSON.stringify({ ...copyOf(consentNotification), category: undefined });
    const payload = hidden.replace("{", '{"__proto__":{"category":"CONSENT"},');
    expect(() => parseNotification(payload)).toThrow(FdxWebhookError);
  });
});

/** The kind of deep merge that prototype-pollution attacks target. */
function naiveMerge(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const k in source) {
    const value = source[k];
    if (typeof value === "object" && value !== null) {
      if (typeof target[k] !== "object" && typeof target[k] !== "function") target[k] = {};
      naiveMerge(target[k] as Record<string, unknown>, value as Record<string, unknown>);
    } else {
      target[k] = value;
    }
  }
}
