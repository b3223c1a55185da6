import { describe, expect, it } from "vitest";
import { startMockServer } from "../src/index.js";
import { useMockServer, validSubscription } from "./helpers.js";

const ctx = useMockServer();
const SUBS = "/notifications/v1/subscriptions";

async function create(body: unknown = validSubscription) {
  const response = await ctx.api(SUBS, { method: "POST", body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

const invalid = (debugMessage: string) => ({ code: "401", message: "Invalid Input", debugMessage });

describe("create", () => {
  it("answers 200 with the fields plus a subscriptionId", async () => {
    const input = { ...validSubscription, effectiveDate: "2026-12-01", callbackEmail: "ops@example.com" };
    const { status, body } = await create(input);
    expect(status).toBe(200);
    expect(body).toEqual({ ...input, subscriptionId: expect.any(String) });
  });

  it("accepts http: callback URLs to loopback hosts", async () => {
    for (const callbackUrl of ["http://localhost:3000/hook", "http://127.0.0.1/hook", "http://[::1]:8080/hook"]) {
      expect((await create({ ...validSubscription, callbackUrl })).status).toBe(200);
    }
  });

  it.each([
    ["a non-https URL", { callbackUrl: "http://hooks.example.com/fdx" }, "Invalid Callback URL"],
    ["a relative URL", { callbackUrl: "/hook" }, "Invalid Callback URL"],
    ["an ftp URL", { callbackUrl: "ftp://example.com/x" }, "Invalid Callback URL"],
    ["a missing URL", { callbackUrl: undefined }, "Invalid Callback URL"],
    ["an unknown category", { category: "BILLING" }, "Invalid Category"],
    ["an unknown type", { type: "OUTAGE" }, "Invalid Type"],
    ["an impossible effectiveDate", { effectiveDate: "2026-02-30" }, "Invalid Effective Date"],
    ["a long effectiveDate", { effectiveDate: "2026-02-01T00:00:00Z" }, "Invalid Effective Date"],
    ["a bad callbackEmail", { callbackEmail: "not-an-email" }, "Invalid Callback Email"],
  ])("rejects %s with 400 Invalid Input", async (_, change, debugMessage) => {
    const { status, body } = await create({ ...validSubscription, ...change });
    expect(status).toBe(400);
    expect(body).toEqual(invalid(debugMessage));
  });

  it("rejects unparseable JSON and non-object bodies with 400 Invalid Input", async () => {
    for (const raw of ["{not json", "[]", '"text"', ""]) {
      const response = await ctx.api(SUBS, { method: "POST", body: raw });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: "401", message: "Invalid Input" });
    }
  });
});

describe("list, get, update, delete", () => {
  it("lists subscriptions wrapped in notificationSubscriptions", async () => {
    const { body: created } = await create();
    const response = await ctx.api(SUBS);
    expect(response.status).toBe(200);
    const { notificationSubscriptions } = await response.json();
    expect(notificationSubscriptions).toContainEqual(created);
  });

  it("gets one subscription by id", async () => {
    const { body: created } = await create();
    const response = await ctx.api(`${SUBS}/${created.subscriptionId}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(created);
  });

  it("updates with PATCH and keeps the other fields", async () => {
    const { body: created } = await create();
    const response = await ctx.api(`${SUBS}/${created.subscriptionId}`, {
      method: "PATCH",
      body: JSON.stringify({ callbackUrl: "https://new.example.com/hook", effectiveDate: "2027-01-31" }),
    });
    expect(response.status).toBe(200);
    const updated = { ...created, callbackUrl: "https://new.example.com/hook", effectiveDate: "2027-01-31" };
    expect(await response.json()).toEqual(updated);
    expect(await (await ctx.api(`${SUBS}/${created.subscriptionId}`)).json()).toEqual(updated);
  });

  it.each([
    ["no fields", {}, "Empty Update Request Body"],
    ["only unknown fields", { category: "CONSENT" }, "Empty Update Request Body"],
    ["a bad callbackUrl", { callbackUrl: "http://example.com" }, "Invalid Callback URL"],
    ["a bad callbackEmail", { callbackEmail: "a@" }, "Invalid Callback Email"],
    ["a bad effectiveDate", { effectiveDate: "31/01/2027" }, "Invalid Effective Date"],
  ])("rejects a PATCH with %s", async (_, patch, debugMessage) => {
    const { body: created } = await create();
    const response = await ctx.api(`${SUBS}/${created.subscriptionId}`, { method: "PATCH", body: JSON.stringify(patch) });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(invalid(debugMessage));
  });

  it("deletes with 204 and no content; the subscription is gone", async () => {
    const { body: created } = await create();
    const response = await ctx.api(`${SUBS}/${created.subscriptionId}`, { method: "DELETE" });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    const again = await ctx.api(`${SUBS}/${created.subscriptionId}`, { method: "DELETE" });
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual(invalid("subscription id was not found"));
  });

  it.each(["GET", "PATCH", "DELETE"])("answers %s of an unknown id with 400 'subscription id was not found'", async (method) => {
    const body = method === "PATCH" ? JSON.stringify({ callbackEmail: "a@example.com" }) : undefined;
    const response = await ctx.api(`${SUBS}/does-not-exist`, { method, body });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(invalid("subscription id was not found"));
  });

  it("rejects a subscription id over 256 characters with 400", async () => {
    const response = await ctx.api(`${SUBS}/${"x".repeat(257)}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: "401", message: "Invalid Input" });
  });
});

it("keeps separate instances apart", async () => {
  const other = await startMockServer();
  try {
    await create();
    const response = await fetch(`${other.baseUrl}${SUBS}`, { headers: { Authorization: `Bearer ${other.token}` } });
    expect(await response.json()).toEqual({ notificationSubscriptions: [] });
  } finally {
    await other.close();
  }
});

describe("limits of a shared sandbox", () => {
  it("keeps at most 1,000 subscriptions, then answers 400 Subscription limit reached until one is deleted", async () => {
    ctx.mock.reset();
    const create = () => ctx.api("/notifications/v1/subscriptions", { method: "POST", body: JSON.stringify(validSubscription) });
    const created: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const response = await create();
      expect(response.status).toBe(200);
      created.push((await response.json()).subscriptionId);
    }
    const refused = await create();
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ code: "401", message: "Invalid Input", debugMessage: "Subscription limit reached" });
    expect(ctx.mock.subscriptions).toHaveLength(1000);
    expect((await ctx.api(`/notifications/v1/subscriptions/${created[0]}`, { method: "DELETE" })).status).toBe(204);
    expect((await create()).status).toBe(200);
    ctx.mock.reset();
  });

  it("refuses a callbackUrl over 2,048 characters on create and update, and takes one of exactly 2,048", async () => {
    const url = (length: number) => {
      const base = "https://hooks.example.com/";
      return base + "a".repeat(length - base.length);
    };
    const long = await ctx.api("/notifications/v1/subscriptions", { method: "POST", body: JSON.stringify({ ...validSubscription, callbackUrl: url(2049) }) });
    expect(long.status).toBe(400);
    expect(await long.json()).toEqual({ code: "401", message: "Invalid Input", debugMessage: "Invalid Callback URL" });
    const exact = await ctx.api("/notifications/v1/subscriptions", { method: "POST", body: JSON.stringify({ ...validSubscription, callbackUrl: url(2048) }) });
    expect(exact.status).toBe(200);
    const { subscriptionId } = await exact.json();
    const patched = await ctx.api(`/notifications/v1/subscriptions/${subscriptionId}`, { method: "PATCH", body: JSON.stringify({ callbackUrl: url(2049) }) });
    expect(patched.status).toBe(400);
    expect((await patched.json()).debugMessage).toBe("Invalid Callback URL");
  });
});
