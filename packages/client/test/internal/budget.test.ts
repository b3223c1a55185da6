// The request path's side of a rate budget: which value is one, and which
// provider a statement URL takes from.
import { describe, expect, it } from "vitest";
import { FdxValidationError } from "../../src/core/error.js";
import { createClient, memoryRateBudget } from "../../src/index.js";
import { checkRateBudget, providerOf } from "../../src/internal/budget.js";

const MESSAGE = "must be a RateBudget (take and pause), e.g. memoryRateBudget()";

describe("checkRateBudget", () => {
  it("takes no budget, or anything with take and pause", () => {
    for (const value of [undefined, memoryRateBudget(), { take: async () => {}, pause: async () => {} }]) {
      const issues: { path: string; message: string }[] = [];
      expect(checkRateBudget(value, issues)).toBe(true);
      expect(issues).toEqual([]);
    }
  });

  it("refuses anything else, naming rateBudget, and createClient throws it", () => {
    for (const value of [null, {}, { take: async () => {} }, { pause: async () => {} }, "memory", { take: 1, pause: 2 }]) {
      const issues: { path: string; message: string }[] = [];
      expect(checkRateBudget(value, issues)).toBe(false);
      expect(issues).toEqual([{ path: "rateBudget", message: MESSAGE }]);
    }
    expect(() => createClient({ baseUrl: "https://x.test", token: "t", rateBudget: {} as never })).toThrow(FdxValidationError);
    expect(() => createClient({ baseUrl: "https://x.test", token: "t", rateBudget: {} as never })).toThrow(`rateBudget: ${MESSAGE}`);
  });
});

describe("providerOf", () => {
  it("is the segment after the statements version, decoded, with or without a slash ending productsUrl", () => {
    for (const products of ["https://x.test/products", "https://x.test/products/"]) {
      expect(providerOf(products, "https://x.test/products/statements/v1/bank-a/accounts/1/statements")).toBe("bank-a");
      expect(providerOf(products, "https://x.test/products/statements/v1/bank%2Fb?x=1")).toBe("bank/b");
      expect(providerOf(products, "https://x.test/products/statements/v1/bank-c#top")).toBe("bank-c");
    }
  });

  it("is undefined for a URL of another shape, an empty segment, or one that does not decode", () => {
    const products = "https://x.test/products";
    expect(providerOf(products, "https://x.test/products/consents/v1/bank-a")).toBeUndefined();
    expect(providerOf(products, "https://x.test/productsstatements/v1/bank-a")).toBeUndefined();
    expect(providerOf(products, "https://other.test/products/statements/v1/bank-a")).toBeUndefined();
    expect(providerOf(products, "https://x.test/products/statements/v1")).toBeUndefined();
    expect(providerOf(products, "https://x.test/products/statements/v1/")).toBeUndefined();
    expect(providerOf(products, "https://x.test/products/statements/v1/%E0%A4%A")).toBeUndefined();
  });
});
