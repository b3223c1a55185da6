import type { PGlite } from "@electric-sql/pglite";
import { FdxValidationError } from "@fdxkit/client";
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { dedupeTableSql, FdxPostgresError, postgresDedupe, type Queryable } from "../src/index.js";
import { expectNoSecrets, memoryPGlite, postgresUrl, uniqueTable } from "./support.js";

const DAY = 86_400_000;
let lite: PGlite;
const pool = postgresUrl ? new pg.Pool({ connectionString: postgresUrl, max: 10 }) : undefined;
beforeAll(async () => {
  lite = await memoryPGlite();
});
afterAll(async () => {
  await lite.close();
  await pool?.end();
});

const rowCount = async (db: Queryable, table: string) => Number(((await db.query(`SELECT count(*)::int AS n FROM "${table}"`)).rows[0] as { n: number }).n);

describe.each([
  ["PGlite", () => lite as Queryable, false],
  ["a PostgreSQL server", () => pool as Queryable, !pool],
])("postgresDedupe on %s", (_name, db, skip) => {
  it.skipIf(skip)("claims an id once: a second claim is refused while the first holds", async () => {
    const dedupe = postgresDedupe(db(), { table: uniqueTable() });
    expect(await dedupe.claim("n-1", DAY)).toBe(true);
    expect(await dedupe.claim("n-1", DAY)).toBe(false);
    expect(await dedupe.claim("n-2", DAY)).toBe(true);
  });

  it.skipIf(skip)("gives a released claim to the next caller", async () => {
    const dedupe = postgresDedupe(db(), { table: uniqueTable() });
    expect(await dedupe.claim("n-1", DAY)).toBe(true);
    await dedupe.release("n-1");
    await dedupe.release("never-claimed");
    expect(await dedupe.claim("n-1", DAY)).toBe(true);
    expect(await dedupe.claim("n-1", DAY)).toBe(false);
  });

  it.skipIf(skip)("gives an expired claim to the next caller (expiry on the database's clock)", async () => {
    const table = uniqueTable();
    const dedupe = postgresDedupe(db(), { table });
    // A TTL of 0 expires at the moment of the claim: any later statement finds it expired.
    expect(await dedupe.claim("n-1", 0)).toBe(true);
    expect(await dedupe.claim("n-1", DAY)).toBe(true);
    expect(await dedupe.claim("n-1", DAY)).toBe(false);
    // A claim set to expire in the past on the database's clock is expired too; one a day ahead is not.
    await dedupe.claim("n-2", DAY);
    await db().query(`UPDATE "${table}" SET expires_at = clock_timestamp() - interval '1 second' WHERE id = 'n-2'`);
    expect(await dedupe.claim("n-2", DAY)).toBe(true);
  });

  it.skipIf(skip)("lets exactly one of 20 concurrent claims of an id win", async () => {
    const dedupe = postgresDedupe(db(), { table: uniqueTable() });
    await dedupe.ready();
    const results = await Promise.all(Array.from({ length: 20 }, () => dedupe.claim("n-1", DAY)));
    expect(results.filter(Boolean)).toHaveLength(1);
    // And of concurrent claims of an expired one.
    await dedupe.claim("n-2", 0);
    const again = await Promise.all(Array.from({ length: 20 }, () => dedupe.claim("n-2", DAY)));
    expect(again.filter(Boolean)).toHaveLength(1);
  });

  it.skipIf(skip)("treats hostile ids as data", async () => {
    const table = uniqueTable();
    const dedupe = postgresDedupe(db(), { table });
    for (const id of ["'; DROP TABLE x; --", 'a"b', "🙂", "%", ""]) {
      expect(await dedupe.claim(id, DAY)).toBe(true);
      expect(await dedupe.claim(id, DAY)).toBe(false);
    }
    expect(await dedupe.claim("_", DAY)).toBe(true);
    await dedupe.release("%");
    expect(await rowCount(db(), table)).toBe(5);
  });

  it.skipIf(skip)("purges expired claims, on demand and every purgeEvery claims", async () => {
    const table = uniqueTable();
    const dedupe = postgresDedupe(db(), { table, purgeEvery: 3 });
    await dedupe.claim("old-1", 0);
    await dedupe.claim("old-2", 0);
    expect(await rowCount(db(), table)).toBe(2);
    // The third claim purges first.
    await dedupe.claim("live-1", DAY);
    expect(await rowCount(db(), table)).toBe(1);
    await dedupe.claim("old-3", 0);
    expect(await dedupe.purge()).toBe(1);
    expect(await dedupe.purge()).toBe(0);
    expect(await dedupe.claim("live-1", DAY)).toBe(false);
  });
});

describe.skipIf(!pool)("postgresDedupe on a real PostgreSQL server", () => {
  it("creates its table once when 5 receivers start at once (5 rounds)", async () => {
    for (let round = 0; round < 5; round++) {
      const table = uniqueTable();
      const pools = Array.from({ length: 5 }, () => new pg.Pool({ connectionString: postgresUrl, max: 1 }));
      try {
        const results = await Promise.all(pools.map((p) => postgresDedupe(p, { table }).claim("n-1", DAY)));
        expect(results.filter(Boolean)).toHaveLength(1);
      } finally {
        await Promise.all(pools.map((p) => p.end()));
      }
    }
  });
});

describe("postgresDedupe", () => {
  it("exports its table SQL, and works on a table a migration made", async () => {
    const table = uniqueTable();
    expect(dedupeTableSql()).toContain('CREATE TABLE IF NOT EXISTS "fdxkit_webhook_dedupe" (');
    await lite.exec(dedupeTableSql(table));
    const dedupe = postgresDedupe(lite, { table, createTable: false });
    expect(await dedupe.claim("n", DAY)).toBe(true);
    const byDefault = postgresDedupe(lite);
    expect(await byDefault.claim("n", DAY)).toBe(true);
    expect(await rowCount(lite, "fdxkit_webhook_dedupe")).toBe(1);
  });

  it("refuses bad arguments before sending anything", async () => {
    const sent: string[] = [];
    const db: Queryable = { query: (text, params) => (sent.push(text), lite.query(text, params)) };
    const dedupe = postgresDedupe(db, { table: uniqueTable() });
    for (const ttl of [-1, Number.NaN, Number.POSITIVE_INFINITY, "5" as unknown as number]) {
      await expect(dedupe.claim("n", ttl)).rejects.toBeInstanceOf(FdxValidationError);
    }
    await expect(dedupe.claim("n\0", DAY)).rejects.toBeInstanceOf(FdxValidationError);
    // Would be claimed as "n\uFFFD", another notification's id.
    await expect(dedupe.claim("n\uD800", DAY)).rejects.toBeInstanceOf(FdxValidationError);
    await expect(dedupe.release(5 as unknown as string)).rejects.toBeInstanceOf(FdxValidationError);
    expect(sent).toEqual([]);
    expect(() => postgresDedupe({} as Queryable)).toThrow(FdxValidationError);
    expect(() => postgresDedupe(lite, { table: "bad name" })).toThrow(FdxValidationError);
    expect(() => postgresDedupe(lite, { purgeEvery: -1 })).toThrow(FdxValidationError);
  });

  it("wraps a database failure in a typed error without the id", async () => {
    const closed = await memoryPGlite();
    const dedupe = postgresDedupe(closed, { table: uniqueTable() });
    await dedupe.ready();
    await closed.close();
    for (const call of [dedupe.claim("notification-secret-id", DAY), dedupe.release("notification-secret-id"), dedupe.purge()]) {
      const error = await call.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FdxPostgresError);
      expectNoSecrets(error, ["notification-secret-id"]);
    }
  });
});

describe.skipIf(!pool)("two receiver processes on one PostgreSQL dedupe store", () => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  // Inside the package's node_modules, so the bundle finds `pg` as the package does.
  const outfile = path.join(here, "../node_modules/.cache/fdxkit-postgres-test/claim-worker.mjs");

  beforeAll(async () => {
    mkdirSync(path.dirname(outfile), { recursive: true });
    await build({
      entryPoints: [path.join(here, "fixtures/claim-worker.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      external: ["pg"],
      outfile,
      logLevel: "error",
    });
  });

  it("handle each of 50 notifications, each delivered twice to each, exactly once", async () => {
    const table = uniqueTable();
    const workers = [0, 1].map(() => {
      const child = spawn(process.execPath, [outfile, postgresUrl, table, "50", "2"], { stdio: ["pipe", "pipe", "inherit"] });
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      return { child, lines, exited };
    });
    for (const w of workers) expect((await w.lines.next()).value).toBe("ready");
    for (const w of workers) w.child.stdin.end("go\n");
    const handled = await Promise.all(workers.map(async (w) => JSON.parse((await w.lines.next()).value as string) as string[]));
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);
    const all = handled.flat();
    expect(all).toHaveLength(50);
    expect(new Set(all).size).toBe(50);
    expect(await rowCount(pool!, table)).toBe(50);
  });
});

describe("as createWebhookHandler's dedupe", () => {
  const notification = (id: string) =>
    JSON.stringify({
      notificationId: id,
      type: "CONSENT_REVOKED",
      sentOn: "2026-11-25T10:00:00Z",
      category: "CONSENT",
      publisher: { name: "bank", type: "DATA_PROVIDER" },
      notificationPayload: { id: "c-1", idType: "CONSENT" },
    });
  const post = (body: string) => new Request("https://me.test/hook", { method: "POST", headers: { "content-type": "application/json" }, body });

  it("a redelivery is answered 200 without a second call; a failed one is handled again", async () => {
    const { createWebhookHandler } = await import("@fdxkit/client/webhooks");
    const dedupe = postgresDedupe(lite, { table: uniqueTable() });
    expectTypeOf(dedupe).toMatchTypeOf<import("@fdxkit/client/webhooks").DedupeStore>();
    const handled: string[] = [];
    let failNext = true;
    const handler = createWebhookHandler({
      dedupe,
      onNotification: (n) => {
        if (n.notificationId === "n-fail" && failNext) {
          failNext = false;
          throw new Error("down");
        }
        handled.push(String(n.notificationId));
      },
    });
    expect((await handler(post(notification("n-1")))).status).toBe(200);
    expect((await handler(post(notification("n-1")))).status).toBe(200);
    expect((await handler(post(notification("n-fail")))).status).toBe(500);
    expect((await handler(post(notification("n-fail")))).status).toBe(200);
    expect((await handler(post(notification("n-fail")))).status).toBe(200);
    expect(handled).toEqual(["n-1", "n-fail"]);
  });
});
