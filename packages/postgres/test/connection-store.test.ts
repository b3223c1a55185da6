import type { PGlite } from "@electric-sql/pglite";
import { FdxError, FdxValidationError } from "@fdxkit/client";
import { readFileSync } from "node:fs";
import net from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectionsTableSql, FdxPostgresError, postgresConnectionStore, type Queryable } from "../src/index.js";
import { connection, expectNoSecrets, memoryPGlite, postgresUrl, uniqueTable } from "./support.js";

/** The db, recording each statement and how many rows it returned. */
function recording(db: Queryable) {
  const calls: { text: string; rows: number }[] = [];
  const wrapped: Queryable = {
    async query(text, params) {
      const result = await db.query(text, params);
      calls.push({ text, rows: result.rows.length });
      return result;
    },
  };
  return { db: wrapped, calls };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

let lite: PGlite;
const pool = postgresUrl ? new pg.Pool({ connectionString: postgresUrl, max: 10 }) : undefined;
beforeAll(async () => {
  lite = await memoryPGlite();
});
afterAll(async () => {
  await lite.close();
  await pool?.end();
});

describe("connectionsTableSql", () => {
  it("gives the statements the store runs, quoted, for the default or a given table", () => {
    const sql = connectionsTableSql();
    expect(sql).toContain('CREATE TABLE IF NOT EXISTS "fdxkit_connections" (');
    expect(sql).toContain('CREATE INDEX IF NOT EXISTS "fdxkit_connections_consent_id_idx" ON "fdxkit_connections" (consent_id)');
    expect(connectionsTableSql("app.Connections")).toContain('CREATE TABLE IF NOT EXISTS "app"."Connections" (');
  });

  it("is what the README shows", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    expect(readme).toContain(`\`\`\`sql\n${connectionsTableSql()}\`\`\``);
  });

  it("is enough for a store that does not create its table (a migration ran it)", async () => {
    const table = uniqueTable();
    await lite.exec(connectionsTableSql(table));
    const { db, calls } = recording(lite);
    const store = postgresConnectionStore(db, { table, createTable: false });
    expect(await store.compareAndSet("a", 0, connection("a"))).toBe(true);
    expect(await store.findByConsentId("consent-a")).toEqual(connection("a"));
    expect(calls.some((c) => /CREATE|to_regclass/.test(c.text))).toBe(false);
  });

  it("refuses a table name that is not an identifier, without echoing it", () => {
    for (const table of ['x"; DROP TABLE y; --', "", "a.b.c", "1abc", "a-b", "x".repeat(64), "ä"]) {
      const error = (() => {
        try {
          connectionsTableSql(table);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(FdxValidationError);
      if (table.length > 3) expect((error as Error).message).not.toContain(table);
      expect(() => postgresConnectionStore(lite, { table })).toThrow(FdxValidationError);
    }
    expect(() => postgresConnectionStore(lite, { table: 42 as unknown as string })).toThrow(FdxValidationError);
  });
});

describe("postgresConnectionStore", () => {
  it("refuses a db without query() and a bad page size", () => {
    expect(() => postgresConnectionStore({} as Queryable)).toThrow(FdxValidationError);
    expect(() => postgresConnectionStore(null as unknown as Queryable)).toThrow(FdxValidationError);
    for (const pageSize of [0, -1, 1.5, 100_001]) expect(() => postgresConnectionStore(lite, { pageSize })).toThrow(FdxValidationError);
  });

  it("creates its table and index once, on first use", async () => {
    const table = uniqueTable();
    const { db, calls } = recording(lite);
    const store = postgresConnectionStore(db, { table });
    await Promise.all([store.get("a"), store.get("b"), store.ready()]);
    await store.get("c");
    expect(calls.filter((c) => c.text.startsWith("CREATE TABLE"))).toHaveLength(1);
    const index = await lite.query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE tablename = $1 AND indexname LIKE '%consent%'", [table]);
    expect(index.rows[0]?.indexdef).toContain("(consent_id)");
  });

  it("works in a schema, and with the default table name", async () => {
    await lite.exec("CREATE SCHEMA IF NOT EXISTS app");
    const store = postgresConnectionStore(lite, { table: `app.${uniqueTable()}` });
    expect(await store.compareAndSet("a", 0, connection("a"))).toBe(true);
    expect(await store.get("a")).toEqual(connection("a"));
    const byDefault = postgresConnectionStore(lite);
    await byDefault.compareAndSet("d", 0, connection("d"));
    expect((await lite.query("SELECT id FROM fdxkit_connections")).rows).toEqual([{ id: "d" }]);
  });

  it("lists in pages of pageSize rows, fetching a page only when the one before is used up", async () => {
    const { db, calls } = recording(lite);
    const store = postgresConnectionStore(db, { table: uniqueTable(), pageSize: 500 });
    for (let i = 0; i < 1_201; i += 200) {
      await Promise.all(Array.from({ length: Math.min(200, 1_201 - i) }, (_, j) => store.compareAndSet(`u${i + j}`, 0, connection(`u${i + j}`))));
    }
    calls.length = 0;
    const seen: string[] = [];
    for await (const c of store.list()) seen.push(c.id);
    expect(seen).toHaveLength(1_201);
    expect([...seen].sort()).toEqual(seen);
    expect(calls.map((c) => c.rows)).toEqual([500, 500, 201]);

    calls.length = 0;
    for await (const c of store.list()) {
      expect(c.id).toBe(seen[0]);
      break;
    }
    expect(calls).toHaveLength(1);
  });

  it("refuses a NUL in an id or a value before sending anything, naming the field, not the value", async () => {
    const { db, calls } = recording(lite);
    const store = postgresConnectionStore(db, { table: uniqueTable() });
    await expect(store.get("a\0b")).rejects.toBeInstanceOf(FdxValidationError);
    await expect(store.delete("a\0b")).rejects.toBeInstanceOf(FdxValidationError);
    await expect(store.findByConsentId("c\0")).rejects.toBeInstanceOf(FdxValidationError);
    await expect(store.compareAndSet("a\0b", 0, connection("a\0b"))).rejects.toBeInstanceOf(FdxValidationError);
    const error = await rejection(store.compareAndSet("a", 0, connection("a", { refreshToken: "refresh-secret\0tail" })));
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues).toEqual([{ path: "next.refreshToken", message: "holds a NUL character, which PostgreSQL text cannot store" }]);
    expectNoSecrets(error, ["refresh-secret"]);
    expect(calls).toEqual([]);
  });

  it("refuses an id with a lone surrogate, which UTF-8 would turn into another user's id", async () => {
    const store = postgresConnectionStore(lite, { table: uniqueTable() });
    // "a\uD800" would reach PostgreSQL as "a\uFFFD": the two must not meet in one row.
    await store.compareAndSet("a\uFFFD", 0, connection("a\uFFFD"));
    for (const id of ["a\uD800", "\uDC00b", "x\uDBFF\uDBFF"]) {
      await expect(store.get(id)).rejects.toBeInstanceOf(FdxValidationError);
      await expect(store.compareAndSet(id, 0, connection(id))).rejects.toBeInstanceOf(FdxValidationError);
    }
    const error = await rejection(store.compareAndSet("b", 0, connection("b", { accounts: ["ok", "bad\uD83D"] })));
    expect((error as FdxValidationError).issues.map((i) => i.path)).toEqual(["next.accounts"]);
    expect(await store.get("a\uD83D\uDE42")).toBeUndefined();
    expect((await store.get("a\uFFFD"))?.id).toBe("a\uFFFD");
  });

  it("refuses a write whose version, id or fields do not fit the contract", async () => {
    const store = postgresConnectionStore(lite, { table: uniqueTable() });
    const cases: [number, unknown, string][] = [
      [0, connection("a", { version: 2 }), "next.version"],
      [0, connection("b"), "next.id"],
      [-1, connection("a", { version: 0 }), "expectedVersion"],
      [0.5, connection("a"), "expectedVersion"],
      [0, null, "next"],
      [0, connection("a", { status: "paused" as "active" }), "next.status"],
      [0, connection("a", { accounts: [1] as unknown as string[] }), "next.accounts"],
      [0, connection("a", { expiresAt: Number.NaN }), "next.expiresAt"],
      [0, connection("a", { connector: 5 as unknown as string }), "next.connector"],
      [0, connection("a", { idToken: undefined as unknown as string }), "next.idToken"],
      [0, connection("a", { lease: { owner: "o", until: Number.POSITIVE_INFINITY } }), "next.lease.until"],
    ];
    for (const [expected, next, path] of cases) {
      const error = await rejection(store.compareAndSet("a", expected, next as never));
      expect(error).toBeInstanceOf(FdxValidationError);
      expect((error as FdxValidationError).issues.map((i) => i.path)).toContain(path);
    }
    expect(await store.get("a")).toBeUndefined();
  });

  it("says which column an altered table lacks", async () => {
    const table = uniqueTable();
    const store = postgresConnectionStore(lite, { table });
    await store.compareAndSet("a", 0, connection("a", { lease: { owner: "o", until: 5 } }));
    await lite.exec(`ALTER TABLE "${table}" DROP COLUMN lease_until`);
    for (const call of [store.get("a"), store.compareAndSet("a", 1, connection("a", { version: 2 })), store.list()[Symbol.asyncIterator]().next()]) {
      const error = await rejection(call);
      expect(error).toBeInstanceOf(FdxPostgresError);
      expect(error).toMatchObject({ code: "42703", column: "lease_until", table });
      expect((error as Error).message).toMatch(/lacks the column "lease_until" — was it altered\?/);
    }
  });

  it("refuses a row it could not have written, naming the column and no value", async () => {
    const table = uniqueTable();
    const store = postgresConnectionStore(lite, { table });
    await store.compareAndSet("a", 0, connection("a"));
    await lite.query(`UPDATE "${table}" SET status = 'status-secret'`);
    let error = await rejection(store.get("a"));
    expect(error).toMatchObject({ name: "FdxPostgresError", column: "status", operation: "get" });
    expectNoSecrets(error, ["status-secret", connection("a").refreshToken]);
    await lite.query(`UPDATE "${table}" SET status = 'active', accounts = '{"not":"an array"}'`);
    error = await rejection(store.findByConsentId("consent-a"));
    expect(error).toMatchObject({ column: "accounts", operation: "findByConsentId" });
    await lite.query(`UPDATE "${table}" SET accounts = '[]'`);
    await lite.exec(`ALTER TABLE "${table}" ALTER COLUMN expires_at TYPE text; UPDATE "${table}" SET expires_at = 'soon'`);
    error = await rejection(store.get("a"));
    expect(error).toMatchObject({ column: "expires_at" });
  });

  it("fails a table that does not exist with createTable: false", async () => {
    const table = uniqueTable();
    const error = await rejection(postgresConnectionStore(lite, { table, createTable: false }).get("a"));
    expect(error).toBeInstanceOf(FdxPostgresError);
    expect(error).toBeInstanceOf(FdxError);
    expect(error).toMatchObject({ code: "42P01", operation: "get", table });
    expect((error as Error).message).toBe(`PostgreSQL store: get on table "${table}": the table does not exist [42P01]`);
  });

  it("wraps a closed PGlite, and keeps nothing of the driver's error", async () => {
    const closed = await memoryPGlite();
    const store = postgresConnectionStore(closed, { table: uniqueTable() });
    await store.ready();
    await closed.close();
    const error = await rejection(store.compareAndSet("a", 0, connection("a")));
    expect(error).toMatchObject({ name: "FdxPostgresError", operation: "compareAndSet" });
    expect((error as Error).message).toContain("PGlite is closed");
    expect((error as Error).cause).toBeUndefined();
    expectNoSecrets(error, [connection("a").idToken, connection("a").refreshToken]);
  });

  describe.each([
    ["PGlite", () => lite as Queryable],
    ["a PostgreSQL server", () => pool as Queryable],
  ])("a constraint the database enforces, on %s", (_name, db) => {
    it.skipIf(!pool)("refuses the write without the row's values (PostgreSQL's detail repeats them)", async () => {
      const table = uniqueTable();
      const store = postgresConnectionStore(db(), { table });
      await store.ready();
      await db().query(`ALTER TABLE "${table}" ADD CONSTRAINT no_forbidden CHECK (refresh_token NOT LIKE '%forbidden%')`);
      const next = connection("a", { idToken: "id-token-leak-check", refreshToken: "refresh-forbidden-secret" });
      // What the driver itself says holds the token: the wrapper is what keeps it out.
      const raw = (await rejection(
        db().query(`INSERT INTO "${table}" SELECT * FROM json_populate_record(NULL::"${table}", $1::json)`, [
          JSON.stringify({
            ...next,
            id_token: next.idToken,
            refresh_token: next.refreshToken,
            expires_at: 1,
            accounts: [],
            client_id: "c",
            created_at: 1,
            updated_at: 1,
          }),
        ]),
      )) as { detail?: string };
      expect(raw.detail).toContain("refresh-forbidden-secret");
      const error = await rejection(store.compareAndSet("a", 0, next));
      expect(error).toMatchObject({ name: "FdxPostgresError", code: "23514", operation: "compareAndSet" });
      expectNoSecrets(error, ["refresh-forbidden-secret", "id-token-leak-check"]);
    });
  });
});

describe.skipIf(!pool)("postgresConnectionStore on a real PostgreSQL server", () => {
  it("streams 100,000 connections in pages of 500, never one result set", async () => {
    const table = uniqueTable();
    const { db, calls } = recording(pool!);
    const store = postgresConnectionStore(db, { table });
    await store.ready();
    // Filled by the server itself: 100,000 round trips would only test the network.
    await pool!.query(
      `INSERT INTO "${table}" (id, version, status, id_token, refresh_token, expires_at, accounts, subject, connector, consent_id, issuer, client_id, created_at, updated_at)
       SELECT 'user-' || lpad(n::text, 6, '0'), 1, 'active', 'i', 'r', 1, '["a"]', 's', 'c', 'consent-' || n, 'iss', 'cid', 1, 1 FROM generate_series(1, 100000) AS n`,
    );
    calls.length = 0;
    let count = 0;
    let last = "";
    for await (const c of store.list()) {
      expect(c.id > last).toBe(true);
      last = c.id;
      count++;
    }
    expect(count).toBe(100_000);
    expect(Math.max(...calls.map((c) => c.rows))).toBe(500);
    expect(calls).toHaveLength(201);
    const found = await store.findByConsentId("consent-77777");
    expect(found?.id).toBe("user-077777");
    const plan = await pool!.query(`EXPLAIN SELECT * FROM "${table}" WHERE consent_id = $1`, ["consent-1"]);
    expect(JSON.stringify(plan.rows)).toContain("consent_id_idx");
  });

  it("creates its table once when 5 stores start at once (5 rounds)", async () => {
    for (let round = 0; round < 5; round++) {
      const table = uniqueTable();
      // Five pools: five sessions racing, as five app instances would.
      const pools = Array.from({ length: 5 }, () => new pg.Pool({ connectionString: postgresUrl, max: 1 }));
      try {
        const stores = pools.map((p) => postgresConnectionStore(p, { table }));
        await Promise.all(stores.map((s, i) => s.compareAndSet(`instance-${i}`, 0, connection(`instance-${i}`))));
        let listed = 0;
        for await (const _ of stores[0]!.list()) listed++;
        expect(listed).toBe(5);
      } finally {
        await Promise.all(pools.map((p) => p.end()));
      }
    }
  });

  it("a connection the server terminates mid-call: a typed error with no value, and the next write succeeds", async () => {
    const table = uniqueTable();
    const store = postgresConnectionStore(pool!, { table });
    await store.compareAndSet("a", 0, connection("a"));
    const next = connection("a", { version: 2, idToken: "fresh-id-token-secret", refreshToken: "fresh-refresh-token-secret" });
    // Another session holds the row, so the store's UPDATE is in flight, waiting, when its backend is terminated.
    const holder = new pg.Client({ connectionString: postgresUrl });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM "${table}" WHERE id = 'a' FOR UPDATE`);
      const pending = rejection(store.compareAndSet("a", 1, next));
      // Polled outside the holder's transaction: pg_stat_activity is a snapshot taken once per transaction.
      let pid: number | undefined;
      while (pid === undefined) {
        const { rows } = await pool!.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND state = 'active' AND query LIKE $1",
          [`UPDATE "${table}"%`],
        );
        pid = rows[0]?.pid;
      }
      await holder.query("SELECT pg_terminate_backend($1)", [pid]);
      const error = await pending;
      expect(error).toBeInstanceOf(FdxPostgresError);
      expect(error).toMatchObject({ code: "57P01", operation: "compareAndSet", table });
      expect((error as Error).message).toContain("the server ended the connection");
      expectNoSecrets(error, ["fresh-id-token-secret", "fresh-refresh-token-secret", postgresUrl]);
      await holder.query("ROLLBACK");
    } finally {
      await holder.end();
    }
    // The caller's retry: the pool reconnects and the tokens are written.
    expect(await store.compareAndSet("a", 1, next)).toBe(true);
    expect(await store.get("a")).toEqual(next);
  });

  it("a server that is down: a typed error without the connection string's password or address", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const down = new pg.Pool({ connectionString: `postgres://fdx:hunter2-password-secret@127.0.0.1:${port}/app` });
    try {
      const store = postgresConnectionStore(down, { table: uniqueTable() });
      const error = await rejection(store.get("a"));
      expect(error).toMatchObject({ name: "FdxPostgresError", code: "ECONNREFUSED", operation: "createTable" });
      expect((error as Error).message).toContain("could not be reached (ECONNREFUSED)");
      expectNoSecrets(error, ["hunter2-password-secret", `${port}`]);
    } finally {
      await down.end();
    }
  });

  it("works over one pg Client, used one call at a time", async () => {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      const store = postgresConnectionStore(client, { table: uniqueTable() });
      expect(await store.compareAndSet("a", 0, connection("a"))).toBe(true);
      expect(await store.compareAndSet("a", 1, connection("a", { version: 2 }))).toBe(true);
      expect((await store.get("a"))?.version).toBe(2);
    } finally {
      await client.end();
    }
  });
});
