import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FdxPostgresError, postgresConnectionStore, type Queryable } from "../src/index.js";
import { connection, memoryPGlite, uniqueTable } from "./support.js";

let lite: PGlite;
beforeAll(async () => {
  lite = await memoryPGlite();
});
afterAll(async () => lite.close());

describe("creating a missing table", () => {
  it("runs the statements again when a concurrent instance created the table first (42P07)", async () => {
    const table = uniqueTable();
    const seen: string[] = [];
    let raced = false;
    // The other instance wins between this one's check and its CREATE: the
    // table appears, and this CREATE fails as PostgreSQL fails the loser
    // (here with 42P07; on pg_type's index it is 23505).
    const db: Queryable = {
      async query(text, params) {
        seen.push(text.slice(0, 12));
        if (!raced && text.startsWith("CREATE TABLE")) {
          raced = true;
          await lite.query(text);
          return lite.query(text.replace(" IF NOT EXISTS", ""), params);
        }
        return lite.query(text, params);
      },
    };
    const store = postgresConnectionStore(db, { table });
    expect(await store.compareAndSet("a", 0, connection("a"))).toBe(true);
    expect(raced).toBe(true);
    expect(seen.filter((s) => s.startsWith("CREATE TABLE"))).toHaveLength(2);
    expect(await store.get("a")).toEqual(connection("a"));
  });

  it("gives up after 5 lost races, with a typed error", async () => {
    const table = uniqueTable();
    await lite.query(`CREATE TABLE "${table}" (id text)`);
    let creates = 0;
    // A relation of that name that to_regclass cannot see (as when it is
    // created and dropped again and again): every CREATE fails with 42P07.
    const db: Queryable = {
      async query(text, params) {
        if (text.startsWith("SELECT to_regclass")) return { rows: [{ present: false }] };
        if (text.startsWith("CREATE TABLE")) {
          creates++;
          return lite.query(`CREATE TABLE "${table}" (id text)`);
        }
        return lite.query(text, params);
      },
    };
    const error = await postgresConnectionStore(db, { table })
      .ready()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxPostgresError);
    expect(error).toMatchObject({ code: "42P07", operation: "createTable" });
    expect(creates).toBe(5);
  });

  it("tries again on the next call after a creation that failed", async () => {
    const schema = uniqueTable("s");
    const store = postgresConnectionStore(lite, { table: `${schema}.connections` });
    const error = await store.get("a").catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "FdxPostgresError", code: "3F000", operation: "createTable" });
    await lite.query(`CREATE SCHEMA "${schema}"`);
    expect(await store.compareAndSet("a", 0, connection("a"))).toBe(true);
  });

  it("does not create (nor need the right to) a table that exists", async () => {
    const table = uniqueTable();
    await postgresConnectionStore(lite, { table }).ready();
    const seen: string[] = [];
    const db: Queryable = {
      query: (text, params) => {
        seen.push(text);
        return lite.query(text, params);
      },
    };
    await postgresConnectionStore(db, { table }).get("a");
    expect(seen.some((s) => s.startsWith("CREATE"))).toBe(false);
  });
});
