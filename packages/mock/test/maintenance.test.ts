import { expect, it } from "vitest";
import { useMockServer } from "./helpers.js";

const ctx = useMockServer();
const path = (id: string) => `/notifications/v1/maintenance/${encodeURIComponent(id)}`;

it("returns every seeded maintenance notice as the seed shows it", async () => {
  expect(ctx.mock.seed.maintenance.length).toBeGreaterThanOrEqual(2);
  for (const notice of ctx.mock.seed.maintenance) {
    const response = await ctx.api(path(notice.id as string));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(notice);
  }
});

it("answers an unknown id with 404 and a body of exactly code and message", async () => {
  const response = await ctx.api(path("maint-unknown"));
  expect(response.status).toBe(404);
  expect(await response.json()).toStrictEqual({ code: "NotFound", message: "resource not found" });
});

it.each([
  ["over 256 characters", "m".repeat(257)],
  ["with a space", "maint 1"],
  ["with a tab", "maint\t1"],
])("answers a notificationPayloadId %s with 400 and an integer code", async (_, id) => {
  const response = await ctx.api(path(id));
  expect(response.status).toBe(400);
  const body = await response.json();
  expect(body).toStrictEqual({ code: 401, message: "Invalid input" });
  expect(typeof body.code).toBe("number");
});

it("accepts an id of exactly 256 characters as well formed (404, not 400)", async () => {
  expect((await ctx.api(path("m".repeat(256)))).status).toBe(404);
});
