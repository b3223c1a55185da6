import { describe, expect, it } from "vitest";
import { runPool, type Gate } from "../../src/export/pool.js";

/** A gate of a fixed size, recording the successes it was told of. */
function fixedGate(size: number): Gate & { oks: boolean[] } {
  let inUse = 0;
  const waiting: (() => void)[] = [];
  const oks: boolean[] = [];
  return {
    oks,
    acquire: () => (inUse < size ? (inUse++, Promise.resolve()) : new Promise<void>((r) => waiting.push(() => (inUse++, r())))),
    release(ok) {
      oks.push(ok);
      inUse--;
      waiting.shift()?.();
    },
  };
}

describe("runPool", () => {
  it("never runs more than the gate allows and processes every item once", async () => {
    let running = 0;
    let max = 0;
    const seen: number[] = [];
    async function* items() {
      for (let i = 0; i < 20; i++) yield i;
    }
    const gate = fixedGate(3);
    await runPool(
      items(),
      8,
      gate,
      async (i) => {
        running++;
        max = Math.max(max, running);
        await new Promise((r) => setImmediate(r));
        seen.push(i);
        running--;
        return i % 2 === 0;
      },
      new AbortController().signal,
    );
    expect(max).toBe(3);
    expect(seen.sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
    expect(gate.oks.filter(Boolean)).toHaveLength(10);
  });

  it("reports a source error after the work in flight", async () => {
    async function* items() {
      yield 1;
      throw new Error("page failed");
    }
    const done: number[] = [];
    const { sourceError } = await runPool(items(), 2, fixedGate(2), async (i) => (done.push(i), true), new AbortController().signal);
    expect(done).toEqual([1]);
    expect((sourceError as Error).message).toBe("page failed");
  });

  it("stops pulling once the signal aborts", async () => {
    const controller = new AbortController();
    let pulled = 0;
    async function* items() {
      for (;;) {
        pulled++;
        yield pulled;
      }
    }
    await runPool(
      items(),
      2,
      fixedGate(2),
      async (i) => {
        if (i === 5) controller.abort();
        return true;
      },
      controller.signal,
    );
    expect(pulled).toBeLessThanOrEqual(6);
  });
});
