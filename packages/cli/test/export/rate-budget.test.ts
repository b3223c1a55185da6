import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkBudgetFlags, describeLimits, laterBudget, openBudget, parseBudgetStore, parseRateLimits } from "../../src/export/rate-budget.js";

const io = { addSecrets: () => {}, info: () => {} };

describe("--rate-limit", () => {
  it("PER_SECOND[/BURST] is every provider's limit (burst 2 unless given); PROVIDER=… one provider's", () => {
    expect(parseRateLimits(["18/2"])).toEqual({ limits: {}, default: { perSecond: 18, burst: 2, userReserve: 0.9 } });
    expect(parseRateLimits(["0.98", "bank-a=0.9/5", "bank=b=.5", "bank-c=3/1.5"])).toEqual({
      limits: {
        "bank-a": { perSecond: 0.9, burst: 5, userReserve: 1 },
        "bank=b": { perSecond: 0.5, burst: 2, userReserve: 0.9 },
        // Below a burst of 2, the budget's own default reserve (a fifth of the burst).
        "bank-c": { perSecond: 3, burst: 1.5 },
      },
      default: { perSecond: 0.98, burst: 2, userReserve: 0.9 },
    });
    expect(describeLimits(parseRateLimits(["18", "bank-a=0.9/5", "bank-c=3/1"]))).toBe(
      "18/s, burst 2, 0.9 kept for users (every provider); bank-a 0.9/s, burst 5, 1 kept for users; bank-c 3/s, burst 1",
    );
  });

  it("a third part is what the export leaves for users (the budget's userReserve), below the burst", () => {
    expect(parseRateLimits(["18/2/1", "bank-a=0.9/5/0"])).toEqual({
      limits: { "bank-a": { perSecond: 0.9, burst: 5, userReserve: 0 } },
      default: { perSecond: 18, burst: 2, userReserve: 1 },
    });
    expect(() => parseRateLimits(["18/2/2"])).toThrow('--rate-limit: the reserve must be below the burst (got "18/2/2")');
  });

  it.each([["0"], ["-1"], ["fast"], ["5/0.5"], ["5/"], ["5/2/"], ["5/2/1/1"], ["5/2/-1"], ["bank-a="], ["=5"], ["1e3"]])(
    "refuses %j, naming the flag and the form",
    (value) => {
      expect(() => parseRateLimits([value])).toThrow(
        `--rate-limit: must be PER_SECOND[/BURST[/RESERVE]] or PROVIDER=PER_SECOND[/BURST[/RESERVE]], requests per second > 0 and a burst >= 1, e.g. 0.9/5 (got ${JSON.stringify(value)})`,
      );
    },
  );

  it("refuses a provider, or the limit of every provider, given twice", () => {
    expect(() => parseRateLimits(["5", "6"])).toThrow(
      "--rate-limit: give PER_SECOND[/BURST[/RESERVE]] without a provider once (it is the limit of every provider)",
    );
    expect(() => parseRateLimits(["a=5", "a=6"])).toThrow('--rate-limit: the provider "a" is given twice');
  });
});

describe("--rate-budget", () => {
  it("is memory, a postgres:// URL or a directory (made absolute); any other URL is refused", () => {
    expect(parseBudgetStore("memory")).toEqual({ kind: "memory" });
    expect(parseBudgetStore("postgresql://u:p@db/app")).toEqual({ kind: "postgres", url: "postgresql://u:p@db/app" });
    expect(parseBudgetStore("./budget")).toEqual({ kind: "directory", dir: path.resolve("budget") });
    expect(() => parseBudgetStore("redis://cache:6379")).toThrow("--rate-budget: expected memory, a postgres:// URL or a directory, not a redis: URL");
    expect(() => parseBudgetStore(" ")).toThrow("--rate-budget: empty (memory, a postgres:// URL or a directory)");
  });

  it("goes with --rate-limit: either alone is refused, except --rate-limit with --connections (the connections store keeps it)", () => {
    expect(checkBudgetFlags(undefined, undefined, false)).toBeUndefined();
    expect(() => checkBudgetFlags(undefined, "memory", false)).toThrow(
      /^--rate-budget: give the provider's limit too, with --rate-limit PER_SECOND\[\/BURST\]/,
    );
    expect(() => checkBudgetFlags(["5"], undefined, false)).toThrow(/^--rate-limit: say where the budget is kept with --rate-budget: a postgres:\/\/ URL/);
    expect(checkBudgetFlags(["5"], undefined, true)).toEqual({
      limits: { limits: {}, default: { perSecond: 5, burst: 2, userReserve: 0.9 } },
      store: undefined,
    });
    expect(checkBudgetFlags(["5"], "memory", true)?.store).toEqual({ kind: "memory" });
  });

  it("an unreachable postgres:// server is a usage error naming the flag, without the password", async () => {
    const error = await openBudget({ kind: "postgres", url: "postgres://app:s3cret@127.0.0.1:1/app" }, { default: { perSecond: 1 } }, io).catch(
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^--rate-budget: could not use postgres:\/\/127\.0\.0\.1:1\/app \(/);
    expect((error as Error).message).not.toContain("s3cret");
  });

  it("a memory budget paces one process: at 20 a second with burst 1, each take after the first waits 50 ms", async () => {
    const { budget, where } = await openBudget({ kind: "memory" }, { default: { perSecond: 20, burst: 1 } }, io);
    expect(where).toBe("memory");
    const started = performance.now();
    for (let i = 0; i < 3; i++) await budget.take("bank-a", "batch");
    // Burst 1 at 20 a second: the second and third each wait 50 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
  });

  it("a budget set later (the connections store's) refuses calls before it is set, then passes them on", async () => {
    const later = laterBudget();
    expect(() => later.budget.take("bank-a", "user")).toThrow("the rate budget's store is not open yet");
    const calls: string[] = [];
    later.set({ take: async (p, a) => void calls.push(`take ${p} ${a}`), pause: async (p, ms) => void calls.push(`pause ${p} ${ms}`) });
    await later.budget.take("bank-a", "batch");
    await later.budget.pause("bank-a", 1000);
    expect(calls).toEqual(["take bank-a batch", "pause bank-a 1000"]);
  });
});
