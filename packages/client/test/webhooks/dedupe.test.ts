import { afterEach, describe, expect, it, vi } from "vitest";
import { createWebhookHandler, FdxValidationError, memoryDedupe, type DedupeStore, type Notification } from "../../src/webhooks/index.js";
import { consentNotification, copyOf } from "./fixtures.js";

function post(notification: object = consentNotification): Request {
  return new Request("https://receiver.test/webhooks", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(notification),
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("memoryDedupe", () => {
  it("claims an id once until it is released", async () => {
    const store = memoryDedupe();
    expect(await store.claim("a", 1000)).toBe(true);
    expect(await store.claim("a", 1000)).toBe(false);
    expect(await store.claim("b", 1000)).toBe(true);
    await store.release("a");
    expect(await store.claim("a", 1000)).toBe(true);
  });

  it("lets a claim lapse after its ttl", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const store = memoryDedupe();
    expect(await store.claim("a", 5000)).toBe(true);
    vi.setSystemTime(1_004_999);
    expect(await store.claim("a", 5000)).toBe(false);
    vi.setSystemTime(1_005_000);
    expect(await store.claim("a", 5000)).toBe(true);
  });

  it("keeps at most max ids, forgetting the oldest first", async () => {
    const store = memoryDedupe({ max: 2 });
    for (const id of ["a", "b", "c"]) expect(await store.claim(id, 60_000)).toBe(true);
    // "a" was forgotten to make room for "c"; "b" and "c" still hold.
    expect(await store.claim("b", 60_000)).toBe(false);
    expect(await store.claim("c", 60_000)).toBe(false);
    expect(await store.claim("a", 60_000)).toBe(true);
    expect(await store.claim("b", 60_000)).toBe(true);
  });

  it("drops lapsed claims as new ones arrive", async () => {
    vi.useFakeTimers({ now: 0 });
    const store = memoryDedupe({ max: 3 });
    await store.claim("old", 10);
    vi.setSystemTime(20);
    // "old" lapsed: it is dropped, so three fresh ids fit under max without evicting one another.
    for (const id of ["x", "y", "z"]) await store.claim(id, 60_000);
    for (const id of ["x", "y", "z"]) expect(await store.claim(id, 60_000)).toBe(false);
  });

  it("reports its ttl (default 24 h) for the handler to ask for", () => {
    expect(memoryDedupe().ttlMs).toBe(86_400_000);
    expect(memoryDedupe({ ttlMs: 1234 }).ttlMs).toBe(1234);
  });

  it.each([
    [{ max: 0 }, "max"],
    [{ max: 1.5 }, "max"],
    [{ ttlMs: 0 }, "ttlMs"],
    [{ ttlMs: Number.POSITIVE_INFINITY }, "ttlMs"],
    [{ ttlMs: "60000" as unknown as number }, "ttlMs"],
  ])("refuses %o", (options, path) => {
    expect(() => memoryDedupe(options)).toThrow(FdxValidationError);
    try {
      memoryDedupe(options);
    } catch (error) {
      expect((error as FdxValidationError).issues[0]?.path).toBe(path);
    }
  });
});

describe("createWebhookHandler with dedupe", () => {
  function setup(dedupe: DedupeStore, work: (n: Notification) => unknown = () => {}) {
    const calls: Notification[] = [];
    const errors: unknown[] = [];
    const handler = createWebhookHandler({
      onNotification: async (n) => {
        calls.push(n);
        await work(n);
      },
      onError: (error) => errors.push(error),
      dedupe,
    });
    return { handler, calls, errors };
  }

  it("answers a redelivery 200 without calling onNotification again", async () => {
    const { handler, calls } = setup(memoryDedupe());
    const first = await handler(post());
    const again = await handler(post());
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(await again.json()).toEqual({ received: true });
    expect(calls).toHaveLength(1);
    // Another notification is handled.
    const other = copyOf(consentNotification);
    other.notificationId = "ntf-other";
    expect((await handler(post(other))).status).toBe(200);
    expect(calls).toHaveLength(2);
  });

  it("releases the claim when onNotification fails, so the retry is handled", async () => {
    let failures = 2;
    const { handler, calls } = setup(memoryDedupe(), () => {
      if (failures-- > 0) throw new Error("database down");
    });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await handler(post())).status);
    expect(statuses).toEqual([500, 500, 200, 200]);
    expect(calls).toHaveLength(3);
  });

  it("asks the store to hold a claim for its ttlMs, else 24 h", async () => {
    const claim = vi.fn(async () => true);
    const release = vi.fn(async () => {});
    await setup({ claim, release, ttlMs: 5000 }).handler(post());
    await setup({ claim, release }).handler(post());
    expect(claim.mock.calls).toEqual([
      [consentNotification.notificationId, 5000],
      [consentNotification.notificationId, 86_400_000],
    ]);
    expect(release).not.toHaveBeenCalled();
  });

  it("handles a notification without a notificationId every time", async () => {
    const claim = vi.fn(async () => true);
    const { handler, calls } = setup({ claim, release: async () => {} });
    const { notificationId: _, ...anonymous } = copyOf(consentNotification);
    await handler(post(anonymous));
    await handler(post(anonymous));
    expect(calls).toHaveLength(2);
    expect(claim).not.toHaveBeenCalled();
  });

  it("answers 500 without calling onNotification when the store fails, and reports it", async () => {
    const failure = new Error("store unreachable");
    const { handler, calls, errors } = setup({
      claim: async () => {
        throw failure;
      },
      release: async () => {},
    });
    const response = await handler(post());
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: "notification not processed" });
    expect(calls).toHaveLength(0);
    expect(errors).toEqual([failure]);
  });

  it("still answers 500 when releasing fails, and reports both errors", async () => {
    const work = new Error("work failed");
    const releasing = new Error("release failed");
    const { handler, errors } = setup(
      {
        claim: async () => true,
        release: async () => {
          throw releasing;
        },
      },
      () => {
        throw work;
      },
    );
    expect((await handler(post())).status).toBe(500);
    expect(errors).toEqual([work, releasing]);
  });

  it("does not claim an invalid body", async () => {
    const claim = vi.fn(async () => true);
    const { handler } = setup({ claim, release: async () => {} });
    expect((await handler(post({ notificationId: "x" }))).status).toBe(400);
    expect(claim).not.toHaveBeenCalled();
  });

  it.each<unknown>([{}, { claim: async () => true }, { claim: () => true, release: "no" }, null])("refuses dedupe %o", (dedupe) => {
    expect(() => createWebhookHandler({ onNotification: () => {}, dedupe: dedupe as unknown as DedupeStore })).toThrow(
      expect.objectContaining({ issues: [{ path: "dedupe", message: "must have claim and release functions" }] }),
    );
  });
});
