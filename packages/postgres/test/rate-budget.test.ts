import type { PGlite } from "@electric-sql/pglite";
import { FdxAbortError, FdxValidationError } from "@fdxkit/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FdxPostgresError, postgresRateBudget, rateBudgetTableSql, type Queryable } from "../src/index.js";
import { memoryPGlite, postgresUrl, uniqueTable } from "./support.js";

let lite: PGlite;
const pool = postgresUrl ? new pg.Pool({ connectionString: postgresUrl, max: 10 }) : undefined;
beforeAll(async () => {
  lite = await memoryPGlite();
});
afterAll(async () => {
  await lite.close();
  await pool?.end();
});

/** A database handle that counts the statements sent through it. */
function counting(db: Queryable) {
  const counter = { statements: 0 };
  const wrapped: Queryable = {
    query: (text, params) => {
      counter.statements++;
      return db.query(text, params);
    },
  };
  return { db: wrapped, counter };
}

/** Resolves each take in `takes` into the order list as it settles. */
function settleOrder(takes: Array<[string, Promise<void>]>) {
  const order: string[] = [];
  return { order, done: Promise.all(takes.map(([label, promise]) => promise.then(() => void order.push(label)))) };
}

describe.each([
  ["PGlite", () => lite as Queryable, false],
  ["a PostgreSQL server", () => pool as Queryable, !pool],
])("postgresRateBudget on %s", (_name, db, skip) => {
  it.skipIf(skip)("lets the burst go at once, then holds to perSecond across two budgets on one table (two processes)", async () => {
    const table = uniqueTable();
    const limits = { bank: { perSecond: 20, burst: 2, userReserve: 0 } };
    const a = postgresRateBudget(db(), { table, limits });
    const b = postgresRateBudget(db(), { table, limits });
    await Promise.all([a.ready(), b.ready()]);
    const started = performance.now();
    await Promise.all([a.take("bank", "user"), b.take("bank", "user")]);
    await Promise.all([...Array.from({ length: 4 }, () => a.take("bank", "user")), ...Array.from({ length: 4 }, () => b.take("bank", "user"))]);
    // 8 more tokens at 20 a second, shared by both: at least 400 ms, whichever budget asked.
    expect(performance.now() - started).toBeGreaterThanOrEqual(380);
  });

  it.skipIf(skip)("serves a user call of one process before the batch calls another process queued first", async () => {
    const table = uniqueTable();
    const limits = { bank: { perSecond: 20, burst: 1, userReserve: 0 } };
    const jobs = postgresRateBudget(db(), { table, limits });
    const web = postgresRateBudget(db(), { table, limits });
    await jobs.take("bank", "batch");
    const batch = Array.from({ length: 4 }, (_, i) => [`batch-${i}`, jobs.take("bank", "batch")] as [string, Promise<void>]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const { order, done } = settleOrder([...batch, ["user", web.take("bank", "user")]]);
    await done;
    expect(order.indexOf("user")).toBeLessThanOrEqual(1);
  });

  it.skipIf(skip)("keeps the user reserve from batch calls", async () => {
    const table = uniqueTable();
    const budget = postgresRateBudget(db(), { table, limits: { bank: { perSecond: 0.5, burst: 5 } } });
    // The reserve is a fifth of the burst: four batch calls go, the fifth waits, a user call still goes at once.
    for (let i = 0; i < 4; i++) await budget.take("bank", "batch");
    const controller = new AbortController();
    const fifth = budget.take("bank", "batch", controller.signal);
    const started = performance.now();
    await budget.take("bank", "user");
    expect(performance.now() - started).toBeLessThan(500);
    controller.abort();
    await expect(fifth).rejects.toBeInstanceOf(FdxAbortError);
  });

  it.skipIf(skip)("pauses a provider for every process after a 429, and only that provider", async () => {
    const table = uniqueTable();
    const a = postgresRateBudget(db(), { table, default: { perSecond: 100 } });
    const b = postgresRateBudget(db(), { table, default: { perSecond: 100 } });
    await a.pause("bank", 400);
    const started = performance.now();
    await b.take("other", "user");
    expect(performance.now() - started).toBeLessThan(300);
    await b.take("bank", "user");
    expect(performance.now() - started).toBeGreaterThanOrEqual(380);
  });

  it.skipIf(skip)("asks the database about once per token however many calls of a process wait", async () => {
    const { db: counted, counter } = counting(db());
    const budget = postgresRateBudget(counted, { table: uniqueTable(), limits: { bank: { perSecond: 20, burst: 1, userReserve: 0 } } });
    await budget.ready();
    const before = counter.statements;
    await Promise.all(Array.from({ length: 20 }, () => budget.take("bank", "batch")));
    // 20 tokens: one statement each, plus the refused asks of one loop (about one per token) and the row's creation.
    // Twenty callers polling on their own would send several hundred.
    expect(counter.statements - before).toBeLessThanOrEqual(50);
  });

  it.skipIf(skip)("rejects every waiting call with FdxPostgresError when the database fails, and a later call works again", async () => {
    let failing = false;
    const flaky: Queryable = {
      query: (text, params) => (failing ? Promise.reject(Object.assign(new Error("terminating connection"), { code: "57P01" })) : db().query(text, params)),
    };
    const budget = postgresRateBudget(flaky, { table: uniqueTable(), limits: { bank: { perSecond: 5, burst: 1, userReserve: 0 } } });
    await budget.take("bank", "user");
    const waiting = [budget.take("bank", "user"), budget.take("bank", "batch")];
    failing = true;
    for (const take of waiting) {
      await expect(take).rejects.toBeInstanceOf(FdxPostgresError);
      await expect(take).rejects.toMatchObject({ code: "57P01", operation: "take" });
    }
    failing = false;
    await budget.take("bank", "user");
  });
});

describe("postgresRateBudget's checks", () => {
  it("refuses limits and arguments that make no sense before any statement", async () => {
    const { db, counter } = counting({ query: () => Promise.resolve({ rows: [] }) });
    expect(() => postgresRateBudget(db, { limits: { bank: { perSecond: -1 } } })).toThrow(FdxValidationError);
    expect(() => postgresRateBudget(db, { default: { perSecond: 1, burst: 2, userReserve: 2 } })).toThrow(/below burst/);
    expect(() => postgresRateBudget({} as Queryable)).toThrow(/query\(text, params\)/);
    expect(() => postgresRateBudget(db, { table: "x; DROP TABLE y" })).toThrow(FdxValidationError);
    const budget = postgresRateBudget(db, { default: { perSecond: 1 } });
    await expect(budget.take("", "user")).rejects.toThrow(FdxValidationError);
    await expect(budget.take("bank", "robot" as "user")).rejects.toThrow(/"user" or "batch"/);
    await expect(budget.pause("bank", -5)).rejects.toThrow(FdxValidationError);
    expect(counter.statements).toBe(0);
  });

  it("lets a provider with no limit and no default through without a statement", async () => {
    const { db, counter } = counting({ query: () => Promise.resolve({ rows: [] }) });
    const budget = postgresRateBudget(db, { limits: { bank: { perSecond: 1 } } });
    await Promise.all(Array.from({ length: 10 }, () => budget.take("other", "batch")));
    expect(counter.statements).toBe(0);
  });

  it("exports the table's SQL for migration tools", () => {
    expect(rateBudgetTableSql("budgets")).toContain('CREATE TABLE IF NOT EXISTS "budgets"');
    expect(rateBudgetTableSql()).toContain('"fdxkit_rate_budget"');
  });
});

describe.each([
  ["PGlite", () => lite as Queryable, false],
  ["a PostgreSQL server", () => pool as Queryable, !pool],
])("postgresRateBudget on %s: users first, and no longer than they wait", (_name, db, skip) => {
  it.skipIf(skip)("a batch call held for a waiting user goes at the token after the user's, not once the user's mark ends", async () => {
    const table = uniqueTable();
    const limits = { bank: { perSecond: 20, burst: 1, userReserve: 0 } };
    const jobs = postgresRateBudget(db(), { table, limits });
    const web = postgresRateBudget(db(), { table, limits });
    await jobs.take("bank", "batch");
    // The bucket is empty: the user is refused (and marks the row), then takes the next token, 50 ms on.
    const started = performance.now();
    const user = web.take("bank", "user").then(() => performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const batch = await jobs.take("bank", "batch").then(() => performance.now() - started);
    expect(await user).toBeLessThan(batch);
    // The token after the user's is due 100 ms on. Held for the mark's whole margin it would go at 300 ms or later.
    expect(batch).toBeLessThan(250);
  });
});
