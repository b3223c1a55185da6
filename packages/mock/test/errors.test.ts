import { describe, expect, it } from "vitest";
import { startMockServer } from "../src/index.js";
import { useMockServer } from "./helpers.js";

const ctx = useMockServer();

/** One call of every operation, for the rows that apply to all of them. */
function everyCall() {
  const { seed } = ctx.mock;
  const account = seed.accounts[0]?.accountId;
  return [
    { method: "GET", path: "/notifications/v1/subscriptions" },
    { method: "POST", path: "/notifications/v1/subscriptions", body: "{}" },
    { method: "GET", path: "/notifications/v1/subscriptions/some-id" },
    { method: "PATCH", path: "/notifications/v1/subscriptions/some-id", body: "{}" },
    { method: "DELETE", path: "/notifications/v1/subscriptions/some-id" },
    { method: "POST", path: "/notifications/v1/test", body: "{}" },
    { method: "GET", path: "/notifications/v1/test" },
    { method: "GET", path: `/notifications/v1/maintenance/${seed.maintenance[0]?.id}` },
    { method: "GET", path: `/consents/v1/${seed.consents[0]?.id}` },
    { method: "GET", path: `/products/statements/v2/${seed.providerId}/${account}` },
    { method: "GET", path: `/products/statements/v2/${seed.providerId}/${account}/anything` },
  ];
}

describe("401 Unauthorized", () => {
  it("answers every call without a token with 401/1205", async () => {
    for (const { method, path, body } of everyCall()) {
      const response = await fetch(`${ctx.mock.baseUrl}${path}`, { method, body });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(await response.json()).toMatchObject({ code: "1205", message: "Unauthorized" });
    }
  });

  it("answers a wrong token, or another scheme, with 401/1205", async () => {
    for (const authorization of ["Bearer wrong", `Basic ${ctx.mock.token}`, `Bearer`]) {
      const response = await ctx.api("/notifications/v1/subscriptions", { headers: { Authorization: authorization } });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: "1205", message: "Unauthorized" });
    }
  });

  it("accepts a token given in the options", async () => {
    const mock = await startMockServer({ token: "my-token" });
    try {
      expect(mock.token).toBe("my-token");
      const ok = await fetch(`${mock.baseUrl}/notifications/v1/subscriptions`, { headers: { Authorization: "Bearer my-token" } });
      expect(ok.status).toBe(200);
      const sandbox = await fetch(`${mock.baseUrl}/notifications/v1/subscriptions`, { headers: { Authorization: `Bearer ${ctx.mock.token}` } });
      expect(sandbox.status).toBe(401);
    } finally {
      await mock.close();
    }
  });
});

describe("501 version not supported", () => {
  it.each([
    ["GET", "/notifications/v2/subscriptions"],
    ["POST", "/notifications/v0/test"],
    ["GET", "/notifications/V1/maintenance/anything"],
    ["DELETE", "/notifications/v9/subscriptions/x"],
  ])("answers %s %s with 501/1106", async (method, path) => {
    const response = await ctx.api(path, { method });
    expect(response.status).toBe(501);
    expect(await response.json()).toMatchObject({ code: "1106", message: "FdxVersion not supported or not implemented" });
  });
});

describe("405 Method Not Allowed", () => {
  it.each([
    ["PUT", "/notifications/v1/subscriptions"],
    ["DELETE", "/notifications/v1/subscriptions"],
    ["POST", "/notifications/v1/subscriptions/some-id"],
    ["PUT", "/notifications/v1/test"],
    ["POST", "/consents/v1/consent-active-1"],
    ["POST", "/products/statements/v2/sandbox-bank/ACC-1001"],
  ])("answers %s %s with 405/1206 and an Allow header", async (method, path) => {
    const response = await ctx.api(path, { method });
    expect(response.status).toBe(405);
    expect(response.headers.get("Allow")).toBeTruthy();
    expect(await response.json()).toMatchObject({ code: "1206", message: "Method Not Allowed" });
  });

  it("answers the maintenance path with a plain-text body", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const response = await ctx.api("/notifications/v1/maintenance/maint-2026-11-08-planned", { method });
      expect(response.status).toBe(405);
      expect(response.headers.get("Content-Type")).toMatch(/^text\/plain/);
      expect(await response.text()).toBe("Method Not Allowed");
    }
  });
});

it("answers unknown paths with 404 and an FDX error body", async () => {
  for (const path of ["/", "/notifications/v1", "/notifications/v1/unknown", "/products/statements/v2", "/nothing/here"]) {
    const response = await ctx.api(path);
    expect(response.status, path).toBe(404);
    expect(await response.json()).toEqual({ code: "NotFound", message: "resource not found" });
  }
});

describe("503 Scheduled Maintenance", () => {
  it("answers every call while maintenance is on, and recovers when off", async () => {
    ctx.mock.setMaintenance(true);
    try {
      for (const { method, path, body } of everyCall()) {
        const response = await ctx.api(path, { method, body });
        expect(response.status, `${method} ${path}`).toBe(503);
        expect(await response.json()).toEqual({ code: "503", message: "Scheduled Maintenance" });
      }
    } finally {
      ctx.mock.setMaintenance(false);
    }
    expect((await ctx.api("/notifications/v1/subscriptions")).status).toBe(200);
  });
});

describe("500 Internal server error", () => {
  it("answers an unprocessed request with 500, then serves again", async () => {
    ctx.mock.failNext(2);
    for (let i = 0; i < 2; i++) {
      const response = await ctx.api("/notifications/v1/subscriptions");
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ code: "500", message: "Internal server error" });
    }
    expect((await ctx.api("/notifications/v1/subscriptions")).status).toBe(200);
  });
});

describe("429 Too Many Requests", () => {
  it("answers 429/1207 with Retry-After in seconds past the configured limit", async () => {
    const mock = await startMockServer({ rateLimit: { limit: 3, windowMs: 60_000 } });
    try {
      const call = () => fetch(`${mock.baseUrl}/notifications/v1/subscriptions`, { headers: { Authorization: `Bearer ${mock.token}` } });
      for (let i = 0; i < 3; i++) expect((await call()).status).toBe(200);
      const limited = await call();
      expect(limited.status).toBe(429);
      const retryAfter = Number(limited.headers.get("Retry-After"));
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
      expect(await limited.json()).toEqual({ code: "1207", message: "Too Many Requests" });
      mock.reset();
      expect((await call()).status).toBe(200);
    } finally {
      await mock.close();
    }
  });

  it("counts requests per window: a new window serves again", async () => {
    const mock = await startMockServer({ rateLimit: { limit: 1, windowMs: 200 } });
    try {
      const call = () => fetch(`${mock.baseUrl}/consents/v1/consent-active-1`, { headers: { Authorization: `Bearer ${mock.token}` } });
      expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(429);
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect((await call()).status).toBe(200);
    } finally {
      await mock.close();
    }
  });
});

describe("CORS", () => {
  it("answers a preflight with the allowed methods and headers, without a token", async () => {
    const response = await fetch(`${ctx.mock.baseUrl}/notifications/v1/subscriptions`, {
      method: "OPTIONS",
      headers: { Origin: "https://app.example.com", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(response.headers.get("Access-Control-Allow-Methods")).toBe("GET, POST, PATCH, DELETE, OPTIONS");
    expect(response.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toContain("authorization");
  });

  it("allows x-fapi-interaction-id and FDX-API-Actor-Type in a preflight that names no headers", async () => {
    const response = await fetch(`${ctx.mock.baseUrl}/consents/v1/x`, { method: "OPTIONS", headers: { Origin: "https://app.example.com" } });
    expect(response.headers.get("Access-Control-Allow-Headers")).toBe("Authorization, Content-Type, Accept, x-fapi-interaction-id, FDX-API-Actor-Type");
  });

  it("sends Allow-Origin and exposes Retry-After and x-fapi-interaction-id on answers, errors included", async () => {
    for (const response of [await ctx.api("/notifications/v1/subscriptions"), await fetch(`${ctx.mock.baseUrl}/consents/v1/x`)]) {
      expect(response.headers.get("Access-Control-Expose-Headers")).toBe("Content-Length, Content-Type, Retry-After, x-fapi-interaction-id");
    }
  });

  it("sends Allow-Origin and exposes Retry-After on answers, errors included", async () => {
    for (const response of [await ctx.api("/notifications/v1/subscriptions"), await fetch(`${ctx.mock.baseUrl}/consents/v1/x`)]) {
      expect(response.headers.get("Access-Control-Allow-Origin")).toBe("*");
      expect(response.headers.get("Access-Control-Expose-Headers")).toContain("Retry-After");
    }
  });
});

describe("x-fapi-interaction-id", () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it("echoes the request's id on every answer: success, every error status, preflight", async () => {
    const cases: [string, RequestInit, number][] = [
      ["/consents/v1/consent-active-1", {}, 200],
      ["/consents/v1/consent-active-1", { headers: { Authorization: "Bearer wrong" } }, 401],
      ["/nothing", {}, 404],
      ["/consents/v1/consent-active-1", { method: "POST" }, 405],
      ["/notifications/v9/subscriptions", {}, 501],
      ["/notifications/v1/subscriptions", { method: "POST", body: "x".repeat(70_000) }, 413],
      ["/notifications/v1/subscriptions", { method: "OPTIONS" }, 204],
    ];
    for (const [path, init, status] of cases) {
      const headers = new Headers(init.headers);
      headers.set("x-fapi-interaction-id", `id-${status}`);
      const response = await ctx.api(path, { ...init, headers });
      expect(response.status, path).toBe(status);
      expect(response.headers.get("x-fapi-interaction-id"), path).toBe(`id-${status}`);
    }
    ctx.mock.failNext();
    const failed = await ctx.api("/consents/v1/consent-active-1", { headers: { "x-fapi-interaction-id": "id-500" } });
    expect([failed.status, failed.headers.get("x-fapi-interaction-id")]).toEqual([500, "id-500"]);
    ctx.mock.setMaintenance(true);
    try {
      const down = await ctx.api("/consents/v1/consent-active-1", { headers: { "x-fapi-interaction-id": "id-503" } });
      expect([down.status, down.headers.get("x-fapi-interaction-id")]).toEqual([503, "id-503"]);
    } finally {
      ctx.mock.setMaintenance(false);
    }
  });

  it("sends a new UUID v4 per answer when the request has none", async () => {
    const ids = [];
    for (const path of ["/consents/v1/consent-active-1", "/consents/v1/consent-active-1", "/nothing"]) {
      ids.push((await ctx.api(path)).headers.get("x-fapi-interaction-id"));
    }
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(3);
  });
});
