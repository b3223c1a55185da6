import fc from "fast-check";
import { HttpResponse } from "msw";
import { beforeEach, describe, expect, it } from "vitest";
import { createClient, FdxValidationError, type SubscriptionInput } from "../../src/index.js";
import { BASE, TOKEN, rejectionOf, useMsw } from "../support/http.js";

const { on, seen } = useMsw();
const client = createClient({ baseUrl: BASE, token: TOKEN, maxRetries: 0 });
const devClient = createClient({ baseUrl: BASE, token: TOKEN, maxRetries: 0, allowInsecureCallbackUrls: true });
const SUBS = `${BASE}/notifications/v1/subscriptions`;

// Every test installs catch-all handlers, so a request that should not have been sent is counted, not lost.
beforeEach(() => {
  on("all", `${BASE}/*`, async (request) => {
    const body = request.method === "POST" || request.method === "PATCH" ? await request.clone().json() : {};
    return HttpResponse.json({ ...body, subscriptionId: "s-1", category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://x.test" });
  });
});

const valid: SubscriptionInput = { category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://me.test/hooks" };

/** Asserts `promise` rejects with FdxValidationError naming `path`, and that nothing was sent. */
async function expectRejected(promise: Promise<unknown>, path: string) {
  const before = seen.length;
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(FdxValidationError);
  expect((error as FdxValidationError).issues.map((i) => i.path)).toContain(path);
  expect(seen.length).toBe(before);
}

// Generators of valid values.
const category = fc.constantFrom("MAINTENANCE", "CONSENT" as const);
const type = fc.constantFrom("SERVICE", "PLANNED_OUTAGE", "CONSENT_UPDATED", "CONSENT_REVOKED" as const);
const httpsUrl = fc.webUrl({ validSchemes: ["https"], withQueryParameters: true });
const calendarDate = fc
  .date({ min: new Date("1900-01-01T00:00:00Z"), max: new Date("2999-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const email = fc.stringMatching(/^[a-z0-9]{1,12}(\.[a-z0-9]{1,6})?@[a-z0-9]{1,12}\.(com|org|test|co\.uk)$/);

describe("valid input reaches the server, exactly", () => {
  it("create sends the input as given", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          { category, type, callbackUrl: httpsUrl, effectiveDate: calendarDate, callbackEmail: email },
          { requiredKeys: ["category", "type", "callbackUrl"] },
        ),
        async (input) => {
          seen.length = 0;
          await client.subscriptions.create(input as SubscriptionInput);
          expect(seen).toHaveLength(1);
          expect(JSON.parse(seen[0]!.body)).toEqual(input);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("update sends the patch as given", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ callbackUrl: httpsUrl, effectiveDate: calendarDate, callbackEmail: email }, { requiredKeys: [] }).filter((p) => Object.keys(p).length > 0),
        fc.stringMatching(/^[A-Za-z0-9_-]{1,256}$/),
        async (patch, id) => {
          seen.length = 0;
          await client.subscriptions.update(id, patch);
          expect(seen).toHaveLength(1);
          expect(seen[0]?.url).toBe(`${SUBS}/${id}`);
          expect(JSON.parse(seen[0]!.body)).toEqual(patch);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("ids of any characters are sent percent-encoded as one path segment", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 256, unit: "binary" }).filter((s) => s !== "." && s !== ".."),
        async (id) => {
          seen.length = 0;
          await client.subscriptions.get(id);
          expect(seen[0]?.url).toBe(`${SUBS}/${encodeURIComponent(id)}`);
        },
      ),
      { numRuns: 60 },
    );
  });

  it.each(["http://localhost:3000/h", "http://127.0.0.1/h", "http://[::1]:8080/h"])(
    "allowInsecureCallbackUrls permits the loopback URL %s",
    async (callbackUrl) => {
      // Clients made inside the test: what createClient reads of the option then counts as this test's (mutation/vitest.config.ts).
      const options = { baseUrl: BASE, token: TOKEN, maxRetries: 0 };
      await createClient({ ...options, allowInsecureCallbackUrls: true }).subscriptions.create({ ...valid, callbackUrl });
      expect(JSON.parse(seen[0]!.body).callbackUrl).toBe(callbackUrl);
      await expectRejected(createClient(options).subscriptions.create({ ...valid, callbackUrl }), "callbackUrl");
      await expectRejected(createClient({ ...options, allowInsecureCallbackUrls: false }).subscriptions.create({ ...valid, callbackUrl }), "callbackUrl");
    },
  );
});

describe("malformed input is rejected before sending", () => {
  it.each(["2023-02-30", "2023-13-01", "2023-00-10", "2023-04-31", "2023-1-01", "2024-02-29T00:00:00Z", "20230101", "", "0099-12-31", "0000-01-01"])(
    "effectiveDate %j",
    async (effectiveDate) => {
      await expectRejected(client.subscriptions.create({ ...valid, effectiveDate }), "effectiveDate");
      await expectRejected(client.subscriptions.update("s-1", { effectiveDate }), "effectiveDate");
    },
  );

  it("any impossible calendar date", async () => {
    const impossible = fc.oneof(
      fc.tuple(fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 13, max: 99 }), fc.integer({ min: 1, max: 28 })),
      fc.tuple(fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 32, max: 99 })),
      fc.tuple(fc.integer({ min: 1000, max: 9999 }), fc.constantFrom(4, 6, 9, 11), fc.constant(31)),
      fc.tuple(
        fc.integer({ min: 1000, max: 9999 }).filter((y) => y % 4 !== 0),
        fc.constant(2),
        fc.constant(29),
      ),
      fc.tuple(fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 0, max: 12 }), fc.constant(0)),
    );
    await fc.assert(
      fc.asyncProperty(impossible, async ([y, m, d]) => {
        const date = `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
        await expectRejected(client.subscriptions.create({ ...valid, effectiveDate: date }), "effectiveDate");
      }),
      { numRuns: 80 },
    );
  });

  it("any effectiveDate longer than 10 characters", async () => {
    await fc.assert(
      fc.asyncProperty(calendarDate, fc.string({ minLength: 1, maxLength: 20 }), async (date, suffix) => {
        await expectRejected(client.subscriptions.create({ ...valid, effectiveDate: date + suffix }), "effectiveDate");
      }),
      { numRuns: 50 },
    );
  });

  it.each([
    "http://me.test/hooks",
    "http://10.0.0.1/h",
    "http://localhost.evil.test/h",
    "/relative/path",
    "hooks",
    "javascript:alert(1)",
    "ftp://me.test/h",
    "data:text/plain,hi",
    "https://",
    "",
  ])("callbackUrl %j", async (callbackUrl) => {
    await expectRejected(client.subscriptions.create({ ...valid, callbackUrl }), "callbackUrl");
    await expectRejected(client.subscriptions.update("s-1", { callbackUrl }), "callbackUrl");
  });

  it("any http: callback URL to a non-loopback host, even with allowInsecureCallbackUrls", async () => {
    const nonLoopback = fc.webUrl({ validSchemes: ["http"] }).filter((u) => !["localhost", "127.0.0.1", "[::1]"].includes(new URL(u).hostname));
    await fc.assert(
      fc.asyncProperty(nonLoopback, async (callbackUrl) => {
        await expectRejected(devClient.subscriptions.create({ ...valid, callbackUrl }), "callbackUrl");
      }),
      { numRuns: 50 },
    );
  });

  it.each(["not-an-email", "a@", "@b.test", "a b@c.test", "a@b", ""])("callbackEmail %j", async (callbackEmail) => {
    await expectRejected(client.subscriptions.create({ ...valid, callbackEmail }), "callbackEmail");
  });

  it("any string without an @ as callbackEmail", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string().filter((s) => !s.includes("@")),
        async (callbackEmail) => {
          await expectRejected(client.subscriptions.update("s-1", { callbackEmail }), "callbackEmail");
        },
      ),
      { numRuns: 50 },
    );
  });

  it("category and type outside the enums", async () => {
    const bad = { ...valid, category: "BILLING", type: "SOMETHING" } as unknown as SubscriptionInput;
    const error = (await rejectionOf(client.subscriptions.create(bad))) as FdxValidationError;
    expect(error.issues.map((i) => i.path).sort()).toEqual(["category", "type"]);
    expect(seen).toHaveLength(0);
  });

  it("names every bad field at once", async () => {
    const error = (await rejectionOf(
      client.subscriptions.create({ ...valid, callbackUrl: "ftp://x", effectiveDate: "2023-02-30", callbackEmail: "nope" }),
    )) as FdxValidationError;
    expect(error.issues.map((i) => i.path).sort()).toEqual(["callbackEmail", "callbackUrl", "effectiveDate"]);
    expect(error.message).toContain("callbackUrl");
  });

  it("an update with none of the fields", async () => {
    const error = (await rejectionOf(client.subscriptions.update("s-1", {}))) as FdxValidationError;
    expect(error).toBeInstanceOf(FdxValidationError);
    expect(seen).toHaveLength(0);
  });

  it.each([
    ["", "subscriptionId"],
    [".", "subscriptionId"],
    ["..", "subscriptionId"],
    ["x".repeat(257), "subscriptionId"],
  ])("subscriptionId %j in get, update, delete and sendTestEvent", async (id, path) => {
    await expectRejected(client.subscriptions.get(id), path);
    await expectRejected(client.subscriptions.update(id, { callbackEmail: "a@b.test" }), path);
    await expectRejected(client.subscriptions.delete(id), path);
    await expectRejected(client.subscriptions.sendTestEvent(id), path);
  });

  it("any subscriptionId over 256 characters", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 257, maxLength: 600 }), async (id) => {
        await expectRejected(client.subscriptions.get(id), "subscriptionId");
      }),
      { numRuns: 30 },
    );
  });

  it("subscriptionId of exactly 256 characters is accepted", async () => {
    await client.subscriptions.get("x".repeat(256));
    expect(seen).toHaveLength(1);
  });

  it.each(["", ".", ".."])("consentId and notificationPayloadId %j", async (id) => {
    await expectRejected(client.consents.get(id), "consentId");
    await expectRejected(client.maintenance.get(id), "notificationPayloadId");
  });

  it("an id with a lone surrogate (not encodable in a URL)", async () => {
    await expectRejected(client.consents.get("abc\uD800"), "consentId");
    await expectRejected(client.consents.get("\uDC00abc"), "consentId");
  });

  it("an id with a surrogate pair is sent, percent-encoded", async () => {
    await client.subscriptions.get("a\u{1F600}");
    expect(seen.at(-1)?.url).toMatch(/\/a%F0%9F%98%80$/);
  });

  it("non-string ids", async () => {
    await expectRejected(client.consents.get(42 as unknown as string), "consentId");
    await expectRejected(client.subscriptions.get(undefined as unknown as string), "subscriptionId");
  });

  it("rejects instead of throwing synchronously", () => {
    // A caller chaining .catch() must see the validation error there.
    expect(() => client.subscriptions.create({ ...valid, callbackUrl: "x" }).catch(() => undefined)).not.toThrow();
    expect(() => client.subscriptions.sendTestEvent("").catch(() => undefined)).not.toThrow();
    expect(() => client.consents.get("").catch(() => undefined)).not.toThrow();
    expect(() => client.maintenance.get("").catch(() => undefined)).not.toThrow();
  });
});
