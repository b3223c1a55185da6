import { expect, it } from "vitest";
import { useMockServer, validSubscription } from "./helpers.js";

const ctx = useMockServer();
const SUBS = "/notifications/v1/subscriptions";

it("keeps state consistent under 50 concurrent clients creating, updating and deleting", async () => {
  // Each client creates two subscriptions, updates both, deletes the first; what survives is known.
  const clients = Array.from({ length: 50 }, async (_, client) => {
    const ids: string[] = [];
    for (let n = 0; n < 2; n++) {
      const response = await ctx.api(SUBS, {
        method: "POST",
        body: JSON.stringify({ ...validSubscription, callbackUrl: `https://hooks.example.com/${client}/${n}` }),
      });
      expect(response.status).toBe(200);
      ids.push((await response.json()).subscriptionId);
    }
    for (const id of ids) {
      const response = await ctx.api(`${SUBS}/${id}`, { method: "PATCH", body: JSON.stringify({ callbackEmail: `client${client}@example.com` }) });
      expect(response.status).toBe(200);
    }
    expect((await ctx.api(`${SUBS}/${ids[0]}`, { method: "DELETE" })).status).toBe(204);
    const survivor = await (await ctx.api(`${SUBS}/${ids[1]}`)).json();
    return survivor;
  });
  const survivors = await Promise.all(clients);

  const { notificationSubscriptions } = await (await ctx.api(SUBS)).json();
  expect(notificationSubscriptions).toHaveLength(50);
  expect(new Set(notificationSubscriptions.map((s: { subscriptionId: string }) => s.subscriptionId)).size).toBe(50);
  expect([...notificationSubscriptions].sort(bySubscriptionId)).toEqual([...survivors].sort(bySubscriptionId));
  for (const survivor of survivors) {
    const client = /\/(\d+)\/1$/.exec(survivor.callbackUrl)?.[1];
    expect(survivor.callbackEmail).toBe(`client${client}@example.com`);
  }
});

function bySubscriptionId(a: { subscriptionId: string }, b: { subscriptionId: string }) {
  return a.subscriptionId.localeCompare(b.subscriptionId);
}
