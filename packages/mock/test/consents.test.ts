import { expect, it } from "vitest";
import { useMockServer } from "./helpers.js";

const ctx = useMockServer();

it("seeds a consent in each status, with parties and resources", () => {
  const { consents } = ctx.mock.seed;
  expect(consents.map((c) => c.status).sort()).toEqual(["ACTIVE", "EXPIRED", "REVOKED"]);
  for (const consent of consents) {
    expect(consent.parties?.length).toBeGreaterThan(0);
    expect(consent.resources?.length).toBeGreaterThan(0);
  }
});

it("returns each seeded consent grant as the seed shows it", async () => {
  for (const consent of ctx.mock.seed.consents) {
    const response = await ctx.api(`/consents/v1/${encodeURIComponent(consent.id as string)}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/json");
    expect(await response.json()).toEqual(consent);
  }
});

it("answers an unknown consent id with the service's own not-found body: 404, code NotFound, nothing else", async () => {
  const response = await ctx.api("/consents/v1/consent-unknown");
  expect(response.status).toBe(404);
  expect(await response.json()).toEqual({ code: "NotFound", message: "resource not found" });
});

it("answers a consent version other than v1 with 501/1106", async () => {
  const response = await ctx.api("/consents/v2/consent-active-1");
  expect(response.status).toBe(501);
  expect(await response.json()).toMatchObject({ code: "1106" });
});

it("gives each instance its own copy of the seed", () => {
  const seed = ctx.mock.seed;
  (seed.consents[0] as { status: string }).status = "CHANGED";
  return ctx.api(`/consents/v1/${seed.consents[0]?.id}`).then(async (response) => {
    expect((await response.json()).status).toBe("ACTIVE");
  });
});
