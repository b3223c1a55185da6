import { describe, expect, it } from "vitest";
import { memoryConnectionStore } from "../../src/auth/index.js";
import { FdxValidationError } from "../../src/index.js";
import { rejectionOf } from "../support/http.js";
import { describeConnectionStore, sampleConnection } from "../support/store-conformance.js";

describeConnectionStore("memory", () => memoryConnectionStore());

describe("memoryConnectionStore", () => {
  it("refuses a write whose version or id does not follow", async () => {
    const store = memoryConnectionStore();
    expect(await rejectionOf(store.compareAndSet("a", 0, sampleConnection("a", { version: 3 })))).toBeInstanceOf(FdxValidationError);
    expect(await rejectionOf(store.compareAndSet("a", 0, sampleConnection("b")))).toBeInstanceOf(FdxValidationError);
    expect(await rejectionOf(store.compareAndSet("a", -1, sampleConnection("a", { version: 0 })))).toBeInstanceOf(FdxValidationError);
    expect(await store.get("a")).toBeUndefined();
  });

  it("names the bad argument and the rule it broke", async () => {
    const store = memoryConnectionStore();
    const issuesOf = async (write: Promise<unknown>) => ((await rejectionOf(write)) as FdxValidationError).issues;
    const version = [{ path: "expectedVersion", message: "must be an integer >= 0" }];
    const next = [{ path: "next", message: "must carry the same id and version expectedVersion + 1" }];
    expect(await issuesOf(store.compareAndSet("a", -1, sampleConnection("a", { version: 0 })))).toEqual(version);
    expect(await issuesOf(store.compareAndSet("a", 0.5, sampleConnection("a", { version: 1.5 })))).toEqual(version);
    expect(await issuesOf(store.compareAndSet("a", 0, sampleConnection("a", { version: 2 })))).toEqual(next);
    expect(await issuesOf(store.compareAndSet("a", 0, sampleConnection("b")))).toEqual(next);
    // A caller passing no row at all (plain JS) gets the same typed error, not a TypeError.
    expect(await issuesOf(store.compareAndSet("a", 0, undefined as never))).toEqual(next);
  });

  it("lists a snapshot: rows written while listing do not upset it", async () => {
    const store = memoryConnectionStore();
    await store.compareAndSet("a", 0, sampleConnection("a"));
    const seen: string[] = [];
    for await (const row of store.list()) {
      seen.push(row.id);
      await store.compareAndSet("b", 0, sampleConnection("b"));
    }
    expect(seen).toEqual(["a"]);
  });
});
