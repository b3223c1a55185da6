import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "../../src/core/error.js";
import { backoffMs, isRetryable, MAX_RETRY_AFTER_MS, shouldRetry } from "../../src/internal/retry.js";

describe("backoff", () => {
  it("is full jitter below min(8 s, 0.5 s · 2^retry)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (retry, r) => {
        const ms = backoffMs(retry, () => r);
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThan(Math.min(8_000, 500 * 2 ** retry));
      }),
    );
  });

  it("doubles from 0.5 s and stops at 8 s", () => {
    const top = (retry: number) => backoffMs(retry, () => 0.999_999) + 1;
    expect([0, 1, 2, 3, 4, 5, 9].map(top)).toEqual([500, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
  });
});

describe("Retry-After", () => {
  const now = Date.parse("2024-06-01T12:00:00Z");
  it.each([
    ["0", 0],
    ["1", 1_000],
    [" 120 ", 120_000],
    ["1.25", 1_250],
    ["0.5", 500],
    ["Sat, 01 Jun 2024 12:00:05 GMT", 5_000],
    ["Sat, 01 Jun 2024 11:00:00 GMT", 0],
  ])("%j → %i ms", (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });

  it.each([null, undefined, "", "soon", "-5", "30s"])("%j is ignored", (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe("retryable", () => {
  it("429 and 503 for every method; 500/502/504 and connection failures only for GET, PATCH, DELETE", () => {
    for (const method of ["GET", "PATCH", "DELETE", "POST"]) {
      expect(isRetryable(method, 429)).toBe(true);
      expect(isRetryable(method, 503)).toBe(true);
      for (const status of [500, 502, 504]) expect(isRetryable(method, status)).toBe(method !== "POST");
      expect(isRetryable(method)).toBe(method !== "POST");
      for (const status of [400, 401, 404, 405, 501]) expect(isRetryable(method, status)).toBe(false);
    }
  });
});

describe("shouldRetry", () => {
  it("retries a retryable failure while attempts remain within maxRetries", () => {
    expect([1, 2, 3].map((attempt) => shouldRetry("GET", attempt, 2, 503, undefined))).toEqual([true, true, false]);
    expect(shouldRetry("GET", 1, 0, 503, undefined)).toBe(false);
  });

  it("does not retry what the method may not repeat", () => {
    expect(shouldRetry("POST", 1, 2, 500, undefined)).toBe(false);
    expect(shouldRetry("POST", 1, 2, undefined, undefined)).toBe(false);
    expect(shouldRetry("POST", 1, 2, 429, undefined)).toBe(true);
    expect(shouldRetry("GET", 1, 2, 404, undefined)).toBe(false);
  });

  it("surfaces the error when the server asks to wait longer than MAX_RETRY_AFTER_MS, and retries up to it", () => {
    expect(shouldRetry("GET", 1, 2, 429, MAX_RETRY_AFTER_MS)).toBe(true);
    expect(shouldRetry("GET", 1, 2, 429, MAX_RETRY_AFTER_MS + 1)).toBe(false);
  });
});
