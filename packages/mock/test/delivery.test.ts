import { describe, expect, it } from "vitest";
import { DeliveryQueue, MAX_DELIVERY_RECORDS } from "../src/delivery.js";
import { createMockHandlers } from "../src/index.js";
import { checkWebhookTls } from "../src/tls-delivery.js";
import type { Notification } from "../src/types.js";

function notification(id: string): Notification {
  return { notificationId: id, category: "MAINTENANCE", type: "SERVICE", notificationPayload: { id: "m", idType: "MAINTENANCE" } } as Notification;
}

/** A fetch answering each POST with the next status of `statuses` (the last one repeats), recording the bodies. */
function answering(...statuses: number[]) {
  const bodies: string[] = [];
  const fetch = (async (_url: string, init: RequestInit) => {
    bodies.push(String(init.body));
    return new Response(null, { status: statuses[Math.min(bodies.length, statuses.length) - 1] });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, bodies };
}

describe("DeliveryQueue", () => {
  it("retries once per delay, then gives up, with the same body each time", async () => {
    const { fetch, bodies } = answering(503);
    const queue = new DeliveryQueue({ retryDelaysMs: [1, 2, 3], fetch });
    queue.enqueue("sub", "https://hooks.test/a", notification("n-1"));
    await queue.idle();
    expect(bodies).toHaveLength(4);
    expect(new Set(bodies).size).toBe(1);
    expect(queue.records).toEqual([expect.objectContaining({ status: "failed", attempts: 4, responseStatus: 503, notificationId: "n-1" })]);
  });

  it("stops retrying at the first 2xx", async () => {
    const { fetch, bodies } = answering(500, 502, 204);
    const queue = new DeliveryQueue({ retryDelaysMs: [1, 1, 1], fetch });
    queue.enqueue("sub", "https://hooks.test/a", notification("n-1"));
    await queue.idle();
    expect(bodies).toHaveLength(3);
    expect(queue.records[0]?.attemptLog.map((a) => a.responseStatus)).toEqual([500, 502, 204]);
    expect(queue.records[0]?.status).toBe("delivered");
  });

  it("counts a redirect as a failure", async () => {
    const queue = new DeliveryQueue({ retryDelaysMs: [], fetch: answering(302).fetch });
    queue.enqueue("sub", "https://hooks.test/a", notification("n-1"));
    await queue.idle();
    expect(queue.records[0]).toMatchObject({ status: "failed", attempts: 1, responseStatus: 302 });
  });

  it("defaults to three retries after 1 s, 5 s and 25 s, and an attempt limit of 10 s", async () => {
    const waits: number[] = [];
    const realSetTimeout = globalThis.setTimeout;
    // Every timer fires at once; the waits asked for are recorded.
    globalThis.setTimeout = ((fn: () => void, ms: number) => {
      waits.push(ms);
      return realSetTimeout(fn, 0);
    }) as typeof setTimeout;
    try {
      const queue = new DeliveryQueue({ fetch: answering(500).fetch });
      queue.enqueue("sub", "https://hooks.test/a", notification("n-1"));
      await queue.idle();
      expect(queue.records[0]?.attempts).toBe(4);
    } finally {
      globalThis.setTimeout = realSetTimeout;
    }
    // Each attempt also arms its 10 s limit (cleared when the answer comes first, as here).
    // Only the queue's own waits are looked at, should anything else set a timer meanwhile.
    expect(waits.filter((ms) => ms >= 1000 && ms !== 10_000)).toEqual([1000, 5000, 25000]);
    expect(waits.filter((ms) => ms === 10_000)).toHaveLength(4);
  });

  it("ends an attempt without an answer at its time limit, saying so, and retries it", async () => {
    let calls = 0;
    const fetch = ((_url: string, init: RequestInit) => {
      calls++;
      // Never answers; rejects only when the attempt is aborted.
      return new Promise((_, reject) => init.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))));
    }) as unknown as typeof globalThis.fetch;
    const queue = new DeliveryQueue({ retryDelaysMs: [1], timeoutMs: 20, fetch });
    queue.enqueue("sub", "https://hooks.test/a", notification("n-1"));
    await queue.idle();
    expect(calls).toBe(2);
    expect(queue.records[0]).toMatchObject({ status: "failed", attempts: 2, error: "No response within 20 ms" });
    expect(queue.records[0]?.attemptLog.map((a) => a.error)).toEqual(["No response within 20 ms", "No response within 20 ms"]);
  });

  it("keeps the records of the last 1,000 deliveries only", async () => {
    const queue = new DeliveryQueue({ retryDelaysMs: [], fetch: answering(200).fetch });
    for (let i = 0; i <= MAX_DELIVERY_RECORDS; i++) queue.enqueue("sub", "https://hooks.test/a", notification(`n-${i}`));
    await queue.idle();
    const records = queue.records;
    expect(MAX_DELIVERY_RECORDS).toBe(1000);
    expect(records).toHaveLength(1000);
    expect(records[0]?.notificationId).toBe("n-1");
    expect(records.at(-1)?.notificationId).toBe("n-1000");
  });

  it("redelivers the latest delivery of an id as a new delivery, and resolves with its record", async () => {
    const { fetch, bodies } = answering(500, 200);
    const queue = new DeliveryQueue({ retryDelaysMs: [], fetch });
    queue.enqueue("sub", "https://hooks.test/a", notification("n-1"));
    await queue.idle();
    const again = await queue.redeliver("n-1");
    expect(again).toMatchObject({ status: "delivered", attempts: 1, responseStatus: 200, redelivery: true, notificationId: "n-1", subscriptionId: "sub" });
    expect(bodies).toEqual([bodies[0], bodies[0]]);
    expect(queue.records.map((r) => [r.redelivery, r.status])).toEqual([
      [false, "failed"],
      [true, "delivered"],
    ]);
  });

  it("refuses to redeliver an id it has no record of", async () => {
    const queue = new DeliveryQueue({ fetch: answering(200).fetch });
    await expect(queue.redeliver("nope")).rejects.toThrow('No delivery of notification "nope" is on record');
  });

  it("hands records out as copies", async () => {
    const queue = new DeliveryQueue({ retryDelaysMs: [], fetch: answering(200).fetch });
    queue.enqueue("sub", "https://hooks.test/a", notification("n-1"));
    await queue.idle();
    const copy = queue.records[0]!;
    copy.status = "failed";
    copy.attemptLog[0]!.responseStatus = 599;
    expect(queue.records[0]).toMatchObject({ status: "delivered", attemptLog: [{ responseStatus: 200 }] });
  });

  it("ends a delivery waiting for a retry as failed when disposed", async () => {
    const queue = new DeliveryQueue({ retryDelaysMs: [60_000], fetch: answering(500).fetch });
    queue.enqueue("sub", "https://hooks.test/a", notification("n-1"));
    await new Promise((resolve) => setTimeout(resolve, 10));
    await queue.dispose();
    expect(queue.records[0]).toMatchObject({ status: "failed", attempts: 1 });
  });

  it("still takes the older maxAttempts and backoffMs", async () => {
    const { fetch, bodies } = answering(500);
    const queue = new DeliveryQueue({ maxAttempts: 2, backoffMs: 1, fetch });
    queue.enqueue("sub", "https://hooks.test/a", notification("n-1"));
    await queue.idle();
    expect(bodies).toHaveLength(2);
  });

  it.each([[[-1]], [[Number.NaN]], ["1000" as unknown as number[]]])("refuses retry delays %o", (retryDelaysMs) => {
    expect(() => new DeliveryQueue({ retryDelaysMs })).toThrow("deliveryRetryDelaysMs must be an array of finite numbers >= 0");
  });

  it("posts to the URLs a transport claims through it, and closes it when disposed", async () => {
    const posted: string[] = [];
    let closed = false;
    const queue = new DeliveryQueue(
      { retryDelaysMs: [], fetch: answering(200).fetch },
      {
        handles: (url) => url.startsWith("https:"),
        post: async (url) => (posted.push(url), 202),
        close: () => void (closed = true),
      },
    );
    queue.enqueue("sub", "https://hooks.test/tls", notification("n-1"));
    queue.enqueue("sub", "http://127.0.0.1/plain", notification("n-2"));
    await queue.idle();
    expect(posted).toEqual(["https://hooks.test/tls"]);
    expect(queue.records.map((r) => r.responseStatus)).toEqual([202, 200]);
    await queue.dispose();
    expect(closed).toBe(true);
  });
});

describe("webhookTls", () => {
  it("is refused by msw handlers, which have no TLS handshake to take part in", () => {
    expect(() => createMockHandlers({ webhookTls: { cert: "c", key: "k" } })).toThrow("webhookTls needs the real server (startMockServer)");
  });

  it.each([
    [null, "webhookTls must be { cert, key, ca? }"],
    [{ cert: "c" }, "webhookTls must be { cert, key, ca? }"],
    [{ cert: "c", key: 1 }, "webhookTls must be { cert, key, ca? }"],
    [{ cert: "c", key: "k", ca: [1] }, "webhookTls.ca must be PEM"],
  ])("refuses %o", (value, message) => {
    expect(() => checkWebhookTls(value)).toThrow(message);
  });

  it("takes PEM as strings or bytes, ca as one or several", () => {
    const bytes = new TextEncoder().encode("pem");
    for (const value of [
      { cert: "c", key: "k" },
      { cert: bytes, key: bytes, ca: bytes },
      { cert: "c", key: "k", ca: ["a", bytes] },
    ]) {
      expect(checkWebhookTls(value)).toBe(value);
    }
  });
});
