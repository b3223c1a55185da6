// The service description's error rows as the SDK surfaces them, against the real HTTP server.
import {
  FdxApiError,
  FdxBadRequestError,
  FdxErrorCode,
  FdxMaintenanceError,
  FdxNotFoundError,
  FdxNotImplementedError,
  FdxRateLimitError,
  FdxUnauthorizedError,
  FdxValidationError,
} from "@fdxkit/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/index.js";
import { sdkClient } from "./helpers.js";

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
});
afterEach(() => mock.reset());
afterAll(() => mock?.close());

/** The rejection of a promise that must reject. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

describe("error rows through the SDK", () => {
  it("a wrong token is FdxUnauthorizedError 1205 on every API, and the token is not in the error", async () => {
    const { client } = sdkClient(mock, { token: "not-the-sandbox-token" });
    const calls = [
      () => client.subscriptions.list(),
      () => client.consents.get("consent-active-1"),
      () => client.maintenance.get("maint-2026-11-08-planned"),
      () => client.statements.list({ providerId: "sandbox-bank", accountId: "ACC-1001" }).toArray(),
    ];
    for (const call of calls) {
      const error = await rejection(call());
      expect(error).toBeInstanceOf(FdxUnauthorizedError);
      expect(error).toMatchObject({ status: 401, code: FdxErrorCode.Unauthorized });
      expect((error as FdxApiError).code).toBe("1205");
      expect(String(error)).not.toContain("not-the-sandbox-token");
      expect(JSON.stringify(error)).not.toContain("not-the-sandbox-token");
    }
  });

  it("notifications version v2 is FdxNotImplementedError 1106", async () => {
    const { client, requests } = sdkClient(mock, { versions: { notifications: "v2" } });
    const error = await rejection(client.subscriptions.list());
    expect(error).toBeInstanceOf(FdxNotImplementedError);
    expect(error).toMatchObject({ status: 501, code: "1106", method: "GET", url: `${mock.baseUrl}/notifications/v2/subscriptions` });
    expect(requests).toHaveLength(1); // 501 is not retried
    // Only the notifications version changed: consents still answer.
    expect((await client.consents.get("consent-active-1")).id).toBe("consent-active-1");
  });

  it("an unknown maintenance id is FdxNotFoundError with code NotFound", async () => {
    const { client } = sdkClient(mock);
    const error = await rejection(client.maintenance.get("maint-does-not-exist"));
    expect(error).toBeInstanceOf(FdxNotFoundError);
    expect(error).toMatchObject({ status: 404, code: FdxErrorCode.NotFound, message: "resource not found" });
    expect((error as FdxApiError).body).toEqual({ code: "NotFound", message: "resource not found" });
  });

  it("a malformed maintenance id (whitespace) is FdxBadRequestError with the integer code normalised to '401'", async () => {
    const { client } = sdkClient(mock);
    const error = await rejection(client.maintenance.get("has a space"));
    expect(error).toBeInstanceOf(FdxBadRequestError);
    expect(error).toMatchObject({ status: 400, code: FdxErrorCode.InvalidInput, message: "Invalid input" });
    expect((error as FdxApiError).code).toBe("401");
    // The body keeps what the server sent: the integer.
    expect((error as FdxApiError).body).toEqual({ code: 401, message: "Invalid input" });
    expect((error as FdxApiError).url).toBe(`${mock.baseUrl}/notifications/v1/maintenance/has%20a%20space`);
  });

  it("an empty PATCH is rejected by the client, with no request", async () => {
    const { client, requests } = sdkClient(mock);
    const created = await client.subscriptions.create({ category: "CONSENT", type: "CONSENT_UPDATED", callbackUrl: "https://hooks.example.com/a" });
    const before = requests.length;
    const error = await rejection(client.subscriptions.update(created.subscriptionId, {}));
    expect(error).toBeInstanceOf(FdxValidationError);
    expect(error).not.toBeInstanceOf(FdxApiError);
    expect((error as FdxValidationError).issues.length).toBeGreaterThan(0);
    expect(requests).toHaveLength(before);
    expect(await client.subscriptions.get(created.subscriptionId)).toEqual(created);
  });

  it("deleting an unknown subscription is FdxBadRequestError 'subscription id was not found'", async () => {
    const { client, requests } = sdkClient(mock);
    const error = await rejection(client.subscriptions.delete("00000000-0000-4000-8000-000000000000"));
    expect(error).toBeInstanceOf(FdxBadRequestError);
    expect(error).toMatchObject({ status: 400, code: "401", method: "DELETE", debugMessage: "subscription id was not found" });
    expect(requests).toHaveLength(1); // a 400 is not retried
  });

  it("scheduled maintenance is FdxMaintenanceError after the retries, and calls work once it ends", async () => {
    const { client, requests } = sdkClient(mock, { maxRetries: 1 });
    mock.setMaintenance(true);
    const error = await rejection(client.consents.get("consent-active-1"));
    expect(error).toBeInstanceOf(FdxMaintenanceError);
    expect(error).toMatchObject({ status: 503, code: FdxErrorCode.ScheduledMaintenance, message: "Scheduled Maintenance" });
    expect(requests).toHaveLength(2); // first attempt + one retry

    // A POST is retried on 503 too (the service did not process it); maxRetries: 0 fails at once.
    const post = await rejection(
      client.subscriptions.create({ category: "CONSENT", type: "CONSENT_UPDATED", callbackUrl: "https://hooks.example.com/a" }, { maxRetries: 0 }),
    );
    expect(post).toBeInstanceOf(FdxMaintenanceError);
    expect(requests).toHaveLength(3);

    mock.setMaintenance(false);
    expect((await client.consents.get("consent-active-1")).status).toBe("ACTIVE");
    expect(await client.subscriptions.list()).toEqual([]);
  });

  it("validation errors reach no server: a non-loopback http callback URL", async () => {
    const { client, requests } = sdkClient(mock);
    const error = await rejection(client.subscriptions.create({ category: "CONSENT", type: "CONSENT_UPDATED", callbackUrl: "http://hooks.example.com/a" }));
    expect(error).toBeInstanceOf(FdxValidationError);
    expect(requests).toHaveLength(0);
  });
});

describe("rate limit through the SDK", () => {
  let limited: MockServer;
  beforeAll(async () => {
    limited = await startMockServer({ port: 0, rateLimit: { limit: 3, windowMs: 60_000 } });
  });
  afterAll(() => limited?.close());

  it("past the limit is FdxRateLimitError 1207 with retryAfterMs from Retry-After", async () => {
    const { client, requests } = sdkClient(limited, { maxRetries: 0 });
    for (let n = 0; n < 3; n++) expect((await client.consents.get("consent-active-1")).id).toBe("consent-active-1");
    const error = await rejection(client.consents.get("consent-active-1"));
    expect(error).toBeInstanceOf(FdxRateLimitError);
    expect(error).toMatchObject({ status: 429, code: FdxErrorCode.TooManyRequests });
    const { retryAfterMs, headers } = error as FdxRateLimitError;
    const retryAfterSeconds = Number(headers["retry-after"]);
    expect(retryAfterSeconds).toBeGreaterThan(0);
    expect(retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(retryAfterMs).toBe(retryAfterSeconds * 1000);
    expect(requests).toHaveLength(4);
  });
});
