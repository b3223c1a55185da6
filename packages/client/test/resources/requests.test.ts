import { HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { createClient, FdxResponseError, type ClientOptions } from "../../src/index.js";
import { BASE, TOKEN, rejectionOf, useMsw } from "../support/http.js";

const { on, seen } = useMsw();
const client = (options: Partial<ClientOptions> = {}) => createClient({ baseUrl: BASE, token: TOKEN, maxRetries: 0, ...options });

const sub = {
  subscriptionId: "sub-1",
  category: "CONSENT",
  type: "CONSENT_REVOKED",
  callbackUrl: "https://me.test/hooks",
} as const;
const notification = {
  notificationId: "n-1",
  sentOn: "2024-05-01T10:00:00Z",
  category: "MAINTENANCE",
  type: "PLANNED_OUTAGE",
  notificationPayload: { id: "m-1", idType: "MAINTENANCE" },
};

describe("request shapes", () => {
  it("create: POST with the exact JSON body, bearer token and JSON content type", async () => {
    on("post", `${BASE}/notifications/v1/subscriptions`, () => HttpResponse.json(sub));
    const input = {
      category: "CONSENT",
      type: "CONSENT_REVOKED",
      callbackUrl: "https://me.test/hooks",
      effectiveDate: "2024-02-29",
      callbackEmail: "ops@me.test",
    } as const;
    await expect(client().subscriptions.create(input)).resolves.toEqual(sub);
    expect(seen).toHaveLength(1);
    const [req] = seen;
    expect(req?.method).toBe("POST");
    expect(req?.url).toBe(`${BASE}/notifications/v1/subscriptions`);
    expect(req?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req?.headers["content-type"]).toBe("application/json");
    expect(req?.headers.accept).toBe("application/json");
    expect(JSON.parse(req!.body)).toEqual(input);
  });

  it("list: GET with no body and no content type", async () => {
    on("get", `${BASE}/notifications/v1/subscriptions`, () => HttpResponse.json([sub]));
    await expect(client().subscriptions.list()).resolves.toEqual([sub]);
    expect(seen[0]).toMatchObject({ method: "GET", body: "", url: `${BASE}/notifications/v1/subscriptions` });
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen[0]?.headers["content-type"]).toBeUndefined();
  });

  it("get: GET …/subscriptions/{id}", async () => {
    on("get", `${BASE}/notifications/v1/subscriptions/sub-1`, () => HttpResponse.json(sub));
    await expect(client().subscriptions.get("sub-1")).resolves.toEqual(sub);
    expect(seen[0]).toMatchObject({ method: "GET", body: "" });
  });

  it("update: PATCH with only the given fields", async () => {
    on("patch", `${BASE}/notifications/v1/subscriptions/sub-1`, () => HttpResponse.json({ ...sub, callbackUrl: "https://me.test/new" }));
    const updated = await client().subscriptions.update("sub-1", { callbackUrl: "https://me.test/new" });
    expect(updated.callbackUrl).toBe("https://me.test/new");
    expect(seen[0]?.method).toBe("PATCH");
    expect(seen[0]?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(seen[0]!.body)).toEqual({ callbackUrl: "https://me.test/new" });
  });

  it("delete: DELETE with no body, resolving to undefined on 204", async () => {
    on("delete", `${BASE}/notifications/v1/subscriptions/sub-1`, () => new HttpResponse(null, { status: 204 }));
    await expect(client().subscriptions.delete("sub-1")).resolves.toBeUndefined();
    expect(seen[0]).toMatchObject({ method: "DELETE", body: "" });
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen[0]?.headers["content-type"]).toBeUndefined();
  });

  it("delete: accepts 200 with { status }", async () => {
    on("delete", `${BASE}/notifications/v1/subscriptions/sub-1`, () => HttpResponse.json({ status: "DELETED" }));
    await expect(client().subscriptions.delete("sub-1")).resolves.toBeUndefined();
  });

  it("sendTestEvent: POST /notifications/v1/test with { id }", async () => {
    on("post", `${BASE}/notifications/v1/test`, () => HttpResponse.json(notification));
    await expect(client().subscriptions.sendTestEvent("sub-1")).resolves.toEqual(notification);
    expect(seen[0]?.method).toBe("POST");
    expect(seen[0]?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(seen[0]!.body)).toEqual({ id: "sub-1" });
  });

  it("maintenance.get: GET /notifications/v1/maintenance/{id}", async () => {
    const notice = { id: "m-1", title: "Upgrade", impactedService: ["statements"] };
    on("get", `${BASE}/notifications/v1/maintenance/m-1`, () => HttpResponse.json(notice));
    await expect(client().maintenance.get("m-1")).resolves.toEqual(notice);
    expect(seen[0]).toMatchObject({ method: "GET", body: "" });
  });

  it("consents.get: GET /consents/v1/{id} with no body (no grant_type, no scope)", async () => {
    const grant = { id: "c-1", status: "REVOKED" };
    on("get", `${BASE}/consents/v1/c-1`, () => HttpResponse.json(grant));
    await expect(client().consents.get("c-1")).resolves.toEqual(grant);
    expect(seen[0]).toMatchObject({ method: "GET", body: "", url: `${BASE}/consents/v1/c-1` });
    expect(seen[0]?.headers["content-type"]).toBeUndefined();
    // Not the platform's `*/*`: the service answers JSON.
    expect(seen[0]?.headers.accept).toBe("application/json");
  });
});

describe("list response shapes", () => {
  const other = { ...sub, subscriptionId: "sub-2" };
  it.each([
    ["an array", [sub, other], [sub, other]],
    ["a notificationSubscriptions wrapper", { notificationSubscriptions: [sub, other], total: 2 }, [sub, other]],
    ["a single subscription", sub, [sub]],
    ["an empty array", [], []],
  ])("turns %s into an array", async (_, body, expected) => {
    on("get", `${BASE}/notifications/v1/subscriptions`, () => HttpResponse.json(body));
    await expect(client().subscriptions.list()).resolves.toEqual(expected);
  });

  it("rejects a body that is none of those with FdxResponseError", async () => {
    on("get", `${BASE}/notifications/v1/subscriptions`, () => HttpResponse.json(42));
    const error = await rejectionOf(client().subscriptions.list());
    expect(error).toBeInstanceOf(FdxResponseError);
    expect((error as FdxResponseError).status).toBe(200);
  });
});

describe("URLs", () => {
  it.each(["https://api.test/fdx/prefix", "https://api.test/fdx/prefix/", "https://api.test/fdx/prefix//"])(
    "keeps the path prefix of %s without a double slash",
    async (baseUrl) => {
      on("get", `${BASE}/fdx/prefix/consents/v1/c-1`, () => HttpResponse.json({ id: "c-1" }));
      await client({ baseUrl }).consents.get("c-1");
      expect(seen[0]?.url).toBe("https://api.test/fdx/prefix/consents/v1/c-1");
    },
  );

  it("percent-encodes path ids: a/b?c#d stays one segment", async () => {
    on("get", `${BASE}/notifications/v1/subscriptions/:id`, (_, n) => HttpResponse.json({ ...sub, n }));
    await client().subscriptions.get("a/b?c#d");
    expect(seen[0]?.url).toBe(`${BASE}/notifications/v1/subscriptions/a%2Fb%3Fc%23d`);
  });

  it("never lets ../ in an id climb out of the path", async () => {
    on("get", `${BASE}/consents/v1/:id`, () => HttpResponse.json({ id: "x" }));
    await client().consents.get("../../admin");
    expect(seen[0]?.url).toBe(`${BASE}/consents/v1/..%2F..%2Fadmin`);
  });

  it("uses the versions given and keeps the defaults for the rest", async () => {
    on("get", `${BASE}/consents/v2/c-1`, () => HttpResponse.json({ id: "c-1" }));
    on("get", `${BASE}/notifications/v1/maintenance/m-1`, () => HttpResponse.json({ id: "m-1" }));
    const c = client({ versions: { consents: "v2" } });
    await c.consents.get("c-1");
    await c.maintenance.get("m-1");
    expect(seen.map((s) => s.url)).toEqual([`${BASE}/consents/v2/c-1`, `${BASE}/notifications/v1/maintenance/m-1`]);
  });

  it("sends per-call headers, but always the client's Authorization", async () => {
    on("get", `${BASE}/consents/v1/c-1`, () => HttpResponse.json({ id: "c-1" }));
    await client().consents.get("c-1", { headers: { "x-fapi-interaction-id": "abc", Authorization: "Bearer other" } });
    expect(seen[0]?.headers["x-fapi-interaction-id"]).toBe("abc");
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("lets a per-call Accept replace the default", async () => {
    on("get", `${BASE}/consents/v1/c-1`, () => HttpResponse.json({ id: "c-1" }));
    await client().consents.get("c-1", { headers: { Accept: "application/fdx+json" } });
    expect(seen[0]?.headers.accept).toBe("application/fdx+json");
  });

  it("calls a token function and sends what it returns", async () => {
    on("get", `${BASE}/consents/v1/c-1`, () => HttpResponse.json({ id: "c-1" }));
    await client({ token: async () => "from-fn" }).consents.get("c-1");
    expect(seen[0]?.headers.authorization).toBe("Bearer from-fn");
  });
});
