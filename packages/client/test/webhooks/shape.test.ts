// asNotification, the hand-written fast path of parseNotification, against
// notificationSchema (zod), the definition: on every generated value it must
// accept only what zod accepts, and give what zod gives.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod/mini";
import { notificationSchema } from "../../src/schemas/notification.js";
import { sanitize } from "../../src/webhooks/json.js";
import { asNotification } from "../../src/webhooks/shape.js";
import { consentNotification, copyOf, maintenanceNotification } from "./fixtures.js";

/** A fresh copy, as parseNotification hands to both. */
function fresh(value: unknown): unknown {
  const json = sanitize(value);
  if (!json.ok) throw new Error(json.issue.message);
  return json.value;
}

/** The verdicts of both on `value`: zod's result, and asNotification's. */
function both(value: unknown) {
  const zod = z.safeParse(notificationSchema, fresh(value));
  const fast = asNotification(fresh(value));
  return { zod, fast };
}

const anyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.string({ maxLength: 4 }),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("name", "value", "href", "x"), tie("value"), { maxKeys: 3 }),
  ),
})).value;

// Each member: usually of the right type, often absent, sometimes anything at all.
const member = <T>(right: fc.Arbitrary<T>) => fc.oneof({ weight: 30, arbitrary: right }, { weight: 1, arbitrary: anyJson });
const strings = fc.array(member(fc.string({ maxLength: 3 })), { maxLength: 3 });
const link = fc.record(
  { href: member(fc.string()), action: member(fc.constantFrom("GET", "QUERY")), rel: member(fc.string()), types: member(strings), extra: anyJson },
  { requiredKeys: [] },
);
const party = fc.record(
  { name: member(fc.string()), type: member(fc.string()), registry: member(fc.string()), registeredEntityId: member(fc.string()), extra: anyJson },
  { requiredKeys: [] },
);
const customField = fc.record({ name: member(fc.string()), value: member(fc.string()), unit: anyJson }, { requiredKeys: [] });
const payload = fc.record(
  {
    id: member(fc.string()),
    idType: member(fc.constantFrom("CONSENT", "MAINTENANCE", "ACCOUNT")),
    customFields: member(fc.oneof(fc.array(member(customField), { maxLength: 3 }), customField)),
    url: member(link),
    extra: anyJson,
  },
  { requiredKeys: [] },
);
const notification = fc.record(
  {
    notificationId: member(fc.string()),
    sentOn: member(fc.string()),
    subscriber: member(party),
    publisher: member(party),
    category: member(fc.constantFrom("CONSENT", "MAINTENANCE", "FRAUD")),
    type: member(fc.constantFrom("CONSENT_REVOKED", "SERVICE")),
    notificationPayload: member(payload),
    url: member(link),
    extra: anyJson,
  },
  { requiredKeys: ["category", "type", "notificationPayload"] },
);

describe("asNotification agrees with notificationSchema", () => {
  it("accepts only what zod accepts, with zod's result, and accepts most of it", () => {
    let accepted = 0;
    let valid = 0;
    fc.assert(
      fc.property(fc.oneof({ weight: 9, arbitrary: notification }, { weight: 1, arbitrary: anyJson }), (value) => {
        const { zod, fast } = both(value);
        if (zod.success) valid++;
        if (fast === undefined) return;
        accepted++;
        expect(zod.success).toBe(true);
        expect(fast).toStrictEqual(zod.data);
      }),
      { numRuns: 20_000 },
    );
    // The generator reaches both verdicts, and zod never accepts what the fast path turns down.
    expect(valid).toBeGreaterThan(2_000);
    expect(valid).toBeLessThan(18_000);
    expect(accepted).toBe(valid);
  });

  it.each([
    ["maintenance", maintenanceNotification],
    ["consent", consentNotification],
  ])("takes the full %s fixture without zod", (_, full) => {
    expect(asNotification(fresh(full))).toStrictEqual(copyOf(full));
  });

  it("wraps a single customFields object in an array, as the schema's transform does", () => {
    const n = copyOf(consentNotification);
    n.notificationPayload.customFields = { name: "reason", value: "user request" };
    expect(asNotification(fresh(n))?.notificationPayload.customFields).toEqual([{ name: "reason", value: "user request" }]);
  });

  it.each([
    ["an array", []],
    ["a missing category", { type: "T", notificationPayload: {} }],
    ["a payload that is an array", { category: "C", type: "T", notificationPayload: [] }],
    ["a link without href", { category: "C", type: "T", notificationPayload: { url: { rel: "x" } } }],
    ["a types entry that is not a string", { category: "C", type: "T", notificationPayload: {}, url: { href: "/x", types: ["a", 1] } }],
    ["a custom field that is not an object", { category: "C", type: "T", notificationPayload: { customFields: ["x"] } }],
    ["a party that is a string", { category: "C", type: "T", notificationPayload: {}, publisher: "Bank" }],
    ["a numeric sentOn", { category: "C", type: "T", notificationPayload: {}, sentOn: 1 }],
  ])("leaves %s to zod", (_, value) => {
    expect(asNotification(fresh(value))).toBeUndefined();
    expect(z.safeParse(notificationSchema, fresh(value)).success).toBe(false);
  });
});
