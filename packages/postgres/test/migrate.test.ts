// A table made by the first release (no access-token columns) gains them in
// place, with its rows, on PGlite and on a real server; several instances
// starting at once on it all succeed; a lock that is not granted in time is a
// typed error, not a queue that stalls the app's writers.
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectionsTableSql, connectionsUpgradeSql, FdxPostgresError, postgresConnectionStore, type Queryable } from "../src/index.js";
import { connection, memoryPGlite, postgresUrl, uniqueTable } from "./support.js";

// Frozen: the CREATE TABLE of the release before the access token (what a
// deployed app's database holds). Never update it with the store's SQL.
const OLD_SCHEMA = (table: string) => `CREATE TABLE IF NOT EXISTS "${table}" (
  id            text PRIMARY KEY,
  version       bigint NOT NULL CHECK (version > 0),
  status        text NOT NULL,
  id_token      text NOT NULL,
  refresh_token text NOT NULL,
  expires_at    double precision NOT NULL,
  accounts      jsonb NOT NULL,
  subject       text NOT NULL,
  connector     text,
  consent_id    text,
  issuer        text NOT NULL,
  client_id     text NOT NULL,
  created_at    double precision NOT NULL,
  updated_at    double precision NOT NULL,
  lease_owner   text,
  lease_until   double precision
)`;

// The INSERT of that release, as its store ran it.
const OLD_INSERT = (
  table: string,
) => `INSERT INTO "${table}" (id, version, status, id_token, refresh_token, expires_at, accounts, subject, connector, consent_id, issuer, client_id, created_at, updated_at, lease_owner, lease_until)
VALUES ($1, $2, $3, $4, $5, $6, $7::text::jsonb, $8, $9, $10, $11, $12, $13, $14, $15, $16)`;

/** Makes `table` as the first release did, with `count` rows written as it wrote them; returns the rows as connections. */
async function oldTable(db: Queryable, table: string, count: number) {
  await db.query(OLD_SCHEMA(table), []);
  const rows = Array.from({ length: count }, (_, i) =>
    connection(`old-${i}`, { version: i + 1, lease: i % 2 ? { owner: `owner-${i}`, until: 1_800_000_000_500 } : undefined }),
  );
  for (const c of rows) {
    await db.query(OLD_INSERT(table), [
      c.id,
      c.version,
      c.status,
      c.idToken,
      c.refreshToken,
      c.expiresAt,
      JSON.stringify(c.accounts),
      c.subject,
      c.connector,
      c.consentId,
      c.issuer,
      c.clientId,
      c.createdAt,
      c.updatedAt,
      c.lease?.owner ?? null,
      c.lease?.until ?? null,
    ]);
  }
  // Read back with no access token: "" and 0.
  return rows.map(({ lease, ...c }) => (lease ? { ...c, lease } : c));
}

async function columnsOf(db: Queryable, table: string): Promise<string[]> {
  const { rows } = await db.query("SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position", [table]);
  return rows.map((r) => (r as { column_name: string }).column_name);
}

/** The db, recording each statement's text. */
function recording(db: Queryable) {
  const texts: string[] = [];
  return { texts, db: { query: (text: string, params?: unknown[]) => (texts.push(text), db.query(text, params)) } satisfies Queryable };
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

describe.each([
  ["PGlite", () => lite as Queryable, false],
  ["a PostgreSQL server", () => pool as Queryable, !pool],
])("a table made by the first release, on %s", (_name, db, skip) => {
  it.skipIf(skip)('gains access_token and access_token_expires_at in place; every row is kept and reads back with "" and 0', async () => {
    const table = uniqueTable("old");
    const before = await oldTable(db(), table, 30);
    const { texts, db: recorded } = recording(db());
    const store = postgresConnectionStore(recorded, { table });
    for (const row of before) expect(await store.get(row.id)).toEqual(row);
    expect(await store.findByConsentId("consent-old-7")).toEqual(before[7]);
    expect((await columnsOf(db(), table)).slice(-2)).toEqual(["access_token", "access_token_expires_at"]);
    expect(texts.filter((t) => t.includes("ALTER TABLE"))).toHaveLength(1);

    // The upgraded table keeps what the new code writes.
    const next = { ...before[0]!, version: 2, accessToken: "access-token-old-0", accessTokenExpiresAt: 1_900_000_000_123.5 };
    expect(await store.compareAndSet("old-0", 1, next)).toBe(true);
    expect(await store.get("old-0")).toEqual(next);
    let listed = 0;
    for await (const _ of store.list()) listed++;
    expect(listed).toBe(30);
  });

  it.skipIf(skip)("looks in the catalog on the next start and alters nothing: no lock taken on the table", async () => {
    const table = uniqueTable("old");
    await oldTable(db(), table, 1);
    await postgresConnectionStore(db(), { table }).ready();
    const { texts, db: recorded } = recording(db());
    const again = postgresConnectionStore(recorded, { table });
    await again.ready();
    expect(texts.some((t) => /ALTER|CREATE/.test(t))).toBe(false);
    expect(texts.some((t) => t.includes("pg_catalog.pg_attribute"))).toBe(true);
    // A table this release created needs no ALTER either.
    const fresh = recording(db());
    await postgresConnectionStore(fresh.db, { table: uniqueTable("new") }).ready();
    expect(fresh.texts.some((t) => t.includes("ALTER"))).toBe(false);
  });
});

describe("connectionsUpgradeSql", () => {
  it("is one ALTER that adds both columns with defaults, quoted, and may run again", async () => {
    expect(connectionsUpgradeSql()).toBe(`ALTER TABLE "fdxkit_connections"
  ADD COLUMN IF NOT EXISTS access_token text NOT NULL DEFAULT '',
  ADD COLUMN IF NOT EXISTS access_token_expires_at double precision NOT NULL DEFAULT 0;
`);
    expect(connectionsUpgradeSql("app.Connections")).toContain('ALTER TABLE "app"."Connections"');
    const table = uniqueTable("old");
    const [row] = await oldTable(lite, table, 1);
    await lite.exec(connectionsUpgradeSql(table));
    await lite.exec(connectionsUpgradeSql(table));
    expect(await postgresConnectionStore(lite, { table, createTable: false }).get("old-0")).toEqual(row);
  });

  it("is what a store with createTable: false on an old table asks for, naming the column", async () => {
    const table = uniqueTable("old");
    await oldTable(lite, table, 1);
    const error = await postgresConnectionStore(lite, { table, createTable: false })
      .get("old-0")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxPostgresError);
    expect(error).toMatchObject({ code: "42703", column: "access_token", operation: "get" });
    expect((error as Error).message).toContain('the table lacks the column "access_token" — was it made by an earlier release? Run connectionsUpgradeSql()');
  });

  it("leaves the table SQL for new tables with both columns", () => {
    expect(connectionsTableSql()).toContain("access_token  text NOT NULL DEFAULT '',\n  access_token_expires_at double precision NOT NULL DEFAULT 0\n)");
  });
});

describe.skipIf(!pool)("upgrading on a real PostgreSQL server", () => {
  it("5 instances starting at once on an old table all work, and every row is kept (5 rounds)", async () => {
    for (let round = 0; round < 5; round++) {
      const table = uniqueTable("old");
      const before = await oldTable(pool!, table, 20);
      // Five pools: five sessions racing to ALTER, as five app instances of a deploy would.
      const pools = Array.from({ length: 5 }, () => new pg.Pool({ connectionString: postgresUrl, max: 1 }));
      try {
        const stores = pools.map((p) => postgresConnectionStore(p, { table }));
        const read = await Promise.all(stores.map((s, i) => s.get(`old-${i}`)));
        expect(read).toEqual(before.slice(0, 5));
        await Promise.all(stores.map((s, i) => s.compareAndSet(`new-${i}`, 0, connection(`new-${i}`, { accessToken: `at-${i}`, accessTokenExpiresAt: 5 }))));
        let listed = 0;
        for await (const _ of stores[0]!.list()) listed++;
        expect(listed).toBe(25);
        expect((await columnsOf(pool!, table)).filter((c) => c.startsWith("access_token"))).toEqual(["access_token", "access_token_expires_at"]);
      } finally {
        await Promise.all(pools.map((p) => p.end()));
      }
    }
  });

  it("gives way when a long transaction holds the table: a typed 55P03 error, the app's reads not queued for long, and the next call upgrades", async () => {
    const table = uniqueTable("old");
    const [row] = await oldTable(pool!, table, 1);
    const holder = new pg.Client({ connectionString: postgresUrl });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT * FROM "${table}"`);
      const store = postgresConnectionStore(pool!, { table });
      const started = Date.now();
      const pending = store.get("old-0").catch((e: unknown) => e);
      // While the ALTER waits for its lock, another reader queues behind it, but only until the ALTER gives up.
      const reader = pool!.query(`SELECT id FROM "${table}"`);
      const error = await pending;
      expect(error).toBeInstanceOf(FdxPostgresError);
      expect(error).toMatchObject({ code: "55P03", operation: "createTable", table });
      expect((error as Error).message).toContain("the table's lock was not granted in time");
      expect((await reader).rows).toEqual([{ id: "old-0" }]);
      expect(Date.now() - started).toBeLessThan(15_000);
      await holder.query("COMMIT");
      expect(await store.get("old-0")).toEqual(row);
    } finally {
      await holder.end();
    }
  });
});
