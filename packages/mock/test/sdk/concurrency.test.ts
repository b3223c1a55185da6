// Issue 6: many parallel SDK clients creating, updating and deleting subscriptions leave the state consistent.
import { FdxBadRequestError, type Subscription } from "@fdxkit/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/index.js";
import { sdkClient } from "./helpers.js";

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
});
afterAll(() => mock?.close());

const CLIENTS = 20;
const PER_CLIENT = 4;

it(`${CLIENTS} parallel clients each creating ${PER_CLIENT}, updating and deleting some leave exactly the survivors`, async () => {
  const results = await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      // Each worker has its own client.
      const { client } = sdkClient(mock);
      const created = await Promise.all(
        Array.from({ length: PER_CLIENT }, (_, n) =>
          client.subscriptions.create({
            category: n % 2 === 0 ? "MAINTENANCE" : "CONSENT",
            type: n % 2 === 0 ? "PLANNED_OUTAGE" : "CONSENT_REVOKED",
            callbackUrl: `https://hooks.example.com/client-${c}/${n}`,
          }),
        ),
      );
      // Update every one in parallel, then delete the even-numbered ones in parallel.
      const updated = await Promise.all(
        created.map((s, n) =>
          client.subscriptions.update(s.subscriptionId, {
            callbackEmail: `client${c}.${n}@example.com`,
            effectiveDate: `2026-12-${String(n + 1).padStart(2, "0")}`,
          }),
        ),
      );
      await Promise.all(updated.filter((_, n) => n % 2 === 0).map((s) => client.subscriptions.delete(s.subscriptionId)));
      return { deleted: updated.filter((_, n) => n % 2 === 0), survivors: updated.filter((_, n) => n % 2 === 1) };
    }),
  );

  const survivors = results.flatMap((r) => r.survivors);
  const deleted = results.flatMap((r) => r.deleted);
  expect(survivors).toHaveLength((CLIENTS * PER_CLIENT) / 2);

  const { client } = sdkClient(mock);
  const listed = await client.subscriptions.list();
  const byId = (a: Subscription, b: Subscription) => a.subscriptionId.localeCompare(b.subscriptionId);
  // Exactly the survivors, each with its updated fields, no duplicates, nothing deleted.
  expect([...listed].sort(byId)).toEqual([...survivors].sort(byId));
  expect(new Set(listed.map((s) => s.subscriptionId)).size).toBe(listed.length);
  for (const s of listed) {
    const [, c, n] = /client-(\d+)\/(\d+)$/.exec(s.callbackUrl)!;
    expect(s).toMatchObject({
      category: "CONSENT",
      type: "CONSENT_REVOKED",
      callbackEmail: `client${c}.${n}@example.com`,
      effectiveDate: `2026-12-${String(Number(n) + 1).padStart(2, "0")}`,
    });
  }
  // The deleted ones are gone for every client.
  const lookups = await Promise.all(deleted.map((s) => client.subscriptions.get(s.subscriptionId).catch((e: unknown) => e)));
  for (const error of lookups) {
    expect(error).toBeInstanceOf(FdxBadRequestError);
    expect(error).toMatchObject({ debugMessage: "subscription id was not found" });
  }
});
