// Interaction ids: UUID v4, from crypto.randomUUID where the page has it,
// else from getRandomValues (a browser page on plain http:// has no randomUUID).
import { afterEach, describe, expect, it } from "vitest";
import { uuid } from "../../src/internal/uuid.js";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const own = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(crypto), "randomUUID")!;

describe("uuid", () => {
  afterEach(() => {
    delete (crypto as { randomUUID?: unknown }).randomUUID;
  });

  it("is crypto.randomUUID's where there is one", () => {
    Object.defineProperty(crypto, "randomUUID", { value: () => "from-randomUUID", configurable: true });
    expect(uuid()).toBe("from-randomUUID");
  });

  it("without crypto.randomUUID, is still a random UUID v4: version 4, variant 8–b, every other digit random", () => {
    Object.defineProperty(crypto, "randomUUID", { value: undefined, configurable: true });
    const ids = Array.from({ length: 2000 }, uuid);
    for (const id of ids) expect(id).toMatch(V4);
    expect(new Set(ids).size).toBe(ids.length);
    // Every hex digit shows up in a random position, and each of the four variants.
    expect(new Set(ids.map((id) => id[0]))).toEqual(new Set("0123456789abcdef"));
    expect(new Set(ids.map((id) => id[19]))).toEqual(new Set("89ab"));
  });

  it("the platform's own is there again after the tests above", () => {
    expect(typeof own.value).toBe("function");
    expect(uuid()).toMatch(V4);
  });
});
