import { HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { createClient, FdxResponseError } from "../../src/index.js";
import { BASE, TOKEN, rejectionOf, useMsw } from "../support/http.js";

const { on } = useMsw();
const strict = createClient({ baseUrl: BASE, token: TOKEN, maxRetries: 0, validateResponses: true });
const lenient = createClient({ baseUrl: BASE, token: TOKEN, maxRetries: 0 });
const SUB_URL = `${BASE}/notifications/v1/subscriptions/s-1`;
const sub = { subscriptionId: "s-1", category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://me.test/h" };

describe("validateResponses: true", () => {
  it("throws FdxResponseError naming each field that breaks the schema", async () => {
    on("get", SUB_URL, () => HttpResponse.json({ category: "CONSENT", type: 7, callbackUrl: "https://me.test/h" }));
    const error = (await rejectionOf(strict.subscriptions.get("s-1", { interactionId: "i-schema" }))) as FdxResponseError;
    expect(error).toBeInstanceOf(FdxResponseError);
    expect(error.status).toBe(200);
    expect(error.interactionId).toBe("i-schema");
    expect(error.issues.map((i) => i.path).sort()).toEqual(["subscriptionId", "type"]);
  });

  it("the same body passes untouched without validateResponses", async () => {
    const odd = { category: "CONSENT", type: 7 };
    on("get", SUB_URL, () => HttpResponse.json(odd));
    await expect(lenient.subscriptions.get("s-1")).resolves.toEqual(odd);
  });

  it("accepts enum values the SDK does not know and keeps unknown fields", async () => {
    const newer = { ...sub, category: "FRAUD", type: "ACCOUNT_FROZEN", region: "eu", nested: { a: 1 } };
    on("get", SUB_URL, () => HttpResponse.json(newer));
    await expect(strict.subscriptions.get("s-1")).resolves.toEqual(newer);
  });

  it("checks every subscription of a list, with the index in the issue path", async () => {
    on("get", `${BASE}/notifications/v1/subscriptions`, () => HttpResponse.json({ notificationSubscriptions: [sub, { ...sub, callbackUrl: 42 }] }));
    const error = (await rejectionOf(strict.subscriptions.list())) as FdxResponseError;
    expect(error.issues.map((i) => i.path)).toEqual(["1.callbackUrl"]);
  });

  it("checks consent grants: wrong types fail, a new status passes", async () => {
    on("get", `${BASE}/consents/v1/c-1`, () => HttpResponse.json({ id: "c-1", status: "SUSPENDED", parties: [{ name: "Bank", type: "AGGREGATOR" }] }));
    await expect(strict.consents.get("c-1")).resolves.toMatchObject({ status: "SUSPENDED" });
    on("get", `${BASE}/consents/v1/c-2`, () => HttpResponse.json({ id: "c-2", resources: [{ dataClusters: "ALL" }] }));
    const error = (await rejectionOf(strict.consents.get("c-2"))) as FdxResponseError;
    expect(error.issues.map((i) => i.path)).toEqual(["resources.0.dataClusters"]);
  });

  it("checks maintenance notices", async () => {
    on("get", `${BASE}/notifications/v1/maintenance/m-1`, () => HttpResponse.json({ id: "m-1", impactedService: "all" }));
    const error = (await rejectionOf(strict.maintenance.get("m-1"))) as FdxResponseError;
    expect(error.issues.map((i) => i.path)).toEqual(["impactedService"]);
  });

  it("checks the test event against the notification schema", async () => {
    on("post", `${BASE}/notifications/v1/test`, () => HttpResponse.json({ category: "MAINTENANCE", type: "SERVICE" }));
    const error = (await rejectionOf(strict.subscriptions.sendTestEvent("s-1"))) as FdxResponseError;
    expect(error.issues.map((i) => i.path)).toContain("notificationPayload");
  });

  it("rejects a non-object body", async () => {
    on("get", SUB_URL, () => HttpResponse.json(["not", "a", "subscription"]));
    await expect(strict.subscriptions.get("s-1")).rejects.toBeInstanceOf(FdxResponseError);
  });
});

describe("a 2xx body that is not JSON", () => {
  it.each([
    ["truncated JSON", '{"subscriptionId": "s-1"'],
    ["an HTML page", "<html><body>OK</body></html>"],
  ])("throws FdxResponseError for %s, even without validateResponses", async (_, text) => {
    on("get", SUB_URL, () => new HttpResponse(text, { status: 200, headers: { "content-type": "application/json" } }));
    const error = (await rejectionOf(lenient.subscriptions.get("s-1"))) as FdxResponseError;
    expect(error).toBeInstanceOf(FdxResponseError);
    expect(error.status).toBe(200);
    expect(error.issues[0]?.message).toMatch(/not valid JSON/);
  });

  it("throws FdxResponseError for an empty 200 where a body is expected", async () => {
    on("get", SUB_URL, () => new HttpResponse(null, { status: 200 }));
    await expect(lenient.subscriptions.get("s-1")).rejects.toBeInstanceOf(FdxResponseError);
  });

  it("delete ignores whatever a 200 carries", async () => {
    on("delete", SUB_URL, () => new HttpResponse("deleted", { status: 200 }));
    await expect(strict.subscriptions.delete("s-1")).resolves.toBeUndefined();
  });
});
