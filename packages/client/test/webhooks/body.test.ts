// readBodyWithLimit, the webhook handler's body reader: what it hands back
// and, as much, what it refuses to read — a sender's declared length, a body
// that lies about it, a chunked body that goes on past the limit.
import { describe, expect, it } from "vitest";
import { readBodyWithLimit, TOO_LARGE } from "../../src/webhooks/body.js";

const URL_ = "https://receiver.test/webhooks";
const text = (bytes: Uint8Array | typeof TOO_LARGE) => (bytes === TOO_LARGE ? "TOO_LARGE" : new TextDecoder().decode(bytes));

/** A body stream of `count` chunks of `size` bytes ("a", "b", …), counting what the reader pulled and whether it cancelled. */
function source(count: number, size: number) {
  const seen = { pulls: 0, cancelled: false };
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      seen.pulls++;
      if (i === count) return controller.close();
      controller.enqueue(new Uint8Array(size).fill(97 + (i++ % 26)));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

function post(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  return new Request(URL_, { method: "POST", body, headers, duplex: "half" } as RequestInit);
}

describe("readBodyWithLimit", () => {
  it("refuses a declared length over the limit without reading, and cancels the body", async () => {
    const { stream, seen } = source(1000, 1024);
    expect(await readBodyWithLimit(post(stream, { "content-length": "1024000" }), 4096)).toBe(TOO_LARGE);
    expect(seen.pulls).toBeLessThanOrEqual(1);
    await Promise.resolve();
    expect(seen.cancelled).toBe(true);
  });

  it("takes a declared length with spaces around it as that length", async () => {
    const { stream, seen } = source(1000, 1024);
    expect(await readBodyWithLimit(post(stream, { "content-length": "  1024000  " }), 4096)).toBe(TOO_LARGE);
    expect(seen.pulls).toBeLessThanOrEqual(1);
  });

  it.each(["4096x", "x4096", "4 096", "4e3", "-1", "(empty)"])(
    "counts a body whose declared length %s is not a number as it arrives, and stops past the limit",
    async (declared) => {
      const { stream, seen } = source(1000, 1024);
      expect(await readBodyWithLimit(post(stream, { "content-length": declared === "(empty)" ? "" : declared }), 4096)).toBe(TOO_LARGE);
      // Read up to the limit, not to the end: a malformed length never makes it buffer the whole body.
      expect(seen.pulls).toBeLessThan(20);
      await Promise.resolve();
      expect(seen.cancelled).toBe(true);
    },
  );

  it("counts a body that declares no length as it arrives, and stops past the limit", async () => {
    const { stream, seen } = source(1000, 1024);
    expect(await readBodyWithLimit(post(stream), 4096)).toBe(TOO_LARGE);
    expect(seen.pulls).toBeLessThan(20);
    await Promise.resolve();
    expect(seen.cancelled).toBe(true);
  });

  it("accepts a body of exactly the limit, declared or not", async () => {
    expect(text(await readBodyWithLimit(post("abcd", { "content-length": "4" }), 4))).toBe("abcd");
    expect(text(await readBodyWithLimit(post(source(2, 2).stream), 4))).toBe("aabb");
    expect(await readBodyWithLimit(post(source(5, 1).stream), 4)).toBe(TOO_LARGE);
  });

  it("refuses a body longer than its declared length once it is found longer than the limit", async () => {
    // A Request built in code can declare any length; what arrives is what counts.
    expect(await readBodyWithLimit(post("abcdef", { "content-length": "2" }), 4)).toBe(TOO_LARGE);
  });

  it("joins a chunked body in order", async () => {
    expect(text(await readBodyWithLimit(post(source(3, 2).stream), 100))).toBe("aabbcc");
    expect(text(await readBodyWithLimit(post(source(1, 3).stream), 100))).toBe("aaa");
  });

  it("answers an empty body for a request without one", async () => {
    // Even under a limit of 0: nothing arrived, so nothing passed it.
    const bytes = await readBodyWithLimit(new Request(URL_, { method: "POST" }), 0);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect((bytes as Uint8Array).byteLength).toBe(0);
  });

  it("reads with arrayBuffer() where the platform's Request has no body stream (Firefox), still under the limit", async () => {
    const firefoxLike = (body: string, headers: Record<string, string> = {}) => {
      const request = post(body, headers);
      Object.defineProperty(request, "body", { value: undefined });
      return request;
    };
    expect(text(await readBodyWithLimit(firefoxLike("abcd"), 4))).toBe("abcd");
    expect(await readBodyWithLimit(firefoxLike("abcde"), 4)).toBe(TOO_LARGE);
    expect(await readBodyWithLimit(firefoxLike("abc", { "content-length": "999" }), 4)).toBe(TOO_LARGE);
  });
});
