import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient, FdxMaintenanceError, FdxUnauthorizedError, FdxValidationError } from "../../src/index.js";

const client = createClient({ baseUrl: "https://api.test/base/", token: "tkn-secret", maxRetries: 1 });
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(() => server.close());

it("creates a subscription through msw (client made before listen)", async () => {
  let seen: { url: string; auth: string | null; body: unknown } | undefined;
  server.use(
    http.post("https://api.test/base/notifications/v1/subscriptions", async ({ request }) => {
      seen = { url: request.url, auth: request.headers.get("authorization"), body: await request.json() };
      return HttpResponse.json({ ...(seen.body as object), subscriptionId: "s1" });
    }),
  );
  const sub = await client.subscriptions.create({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://me.test/hook" });
  expect(sub.subscriptionId).toBe("s1");
  expect(seen).toEqual({
    url: "https://api.test/base/notifications/v1/subscriptions",
    auth: "Bearer tkn-secret",
    body: { category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://me.test/hook" },
  });
});

it("maps errors and retries 503", async () => {
  let calls = 0;
  server.use(
    http.get("https://api.test/base/consents/v1/:id", () => {
      calls++;
      return HttpResponse.json({ code: "1205", message: "Unauthorized" }, { status: 401 });
    }),
    http.get("https://api.test/base/notifications/v1/maintenance/:id", () => {
      calls++;
      return HttpResponse.json({ code: "503", message: "Scheduled Maintenance" }, { status: 503, headers: { "Retry-After": "0" } });
    }),
  );
  await expect(client.consents.get("c/1")).rejects.toBeInstanceOf(FdxUnauthorizedError);
  expect(calls).toBe(1);
  const err = await client.maintenance.get("m1").catch((e) => e);
  expect(err).toBeInstanceOf(FdxMaintenanceError);
  expect(calls).toBe(3);
  expect(JSON.stringify(err)).not.toContain("tkn-secret");
  await expect(client.subscriptions.get("..")).rejects.toBeInstanceOf(FdxValidationError);
});

it("withOptions: a new client with some options changed and the rest shared", async () => {
  const seenAuth: string[] = [];
  server.use(
    http.get("https://api.test/base/consents/v1/:id", ({ request }) => {
      seenAuth.push(`${request.headers.get("authorization")} ${request.headers.get("x-fapi-interaction-id") ?? "-"}`);
      return HttpResponse.json({ id: "c", status: "ACTIVE" });
    }),
  );
  const base = createClient({ baseUrl: "https://api.test/base/", token: "tkn-secret", interactionIds: false });
  const user = base.withOptions({ token: () => "user-token" });
  await user.consents.get("c");
  await base.consents.get("c");
  // Undefined in the changes keeps the original's value; the derived client derives again.
  await user.withOptions({ token: undefined, interactionIds: undefined }).consents.get("c");
  expect(seenAuth).toEqual(["Bearer user-token -", "Bearer tkn-secret -", "Bearer user-token -"]);
  expect(() => base.withOptions({ baseUrl: "relative" })).toThrow(FdxValidationError);
});
