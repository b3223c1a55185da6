// openPGlite's start-up settings: PostgreSQL's memory sized for one session,
// the app's own start parameters winning over them, and the share files
// (handed to PGlite as bytes already read) whole, for initdb too.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { openPGlite } from "../src/pglite.js";

// Each open starts an embedded PostgreSQL, and the last one runs initdb: seconds on a busy machine.
const SLOW = 240_000;
const root = mkdtempSync(path.join(tmpdir(), "fdxkit-pglite-"));
const cache = path.join(root, "cache");
afterAll(() => rmSync(root, { recursive: true, force: true }), 60_000);

async function settings(db: Awaited<ReturnType<typeof openPGlite>>) {
  const { rows } = await db.query(
    "SELECT current_setting('shared_buffers') AS buffers, current_setting('shared_memory_size') AS memory, current_setting('search_path') AS path",
  );
  return rows[0] as { buffers: string; memory: string; path: string };
}

// A text search dictionary reads its files from PostgreSQL's share directory: a damaged bundle fails here.
const STEM = "SELECT to_tsvector('english', 'connections were running') AS v";

describe("openPGlite", () => {
  it(
    "sizes PostgreSQL's shared memory for one session, not a server's 100 connections and 128 MB of buffers",
    async () => {
      const db = await openPGlite(undefined, { templateDir: cache });
      try {
        const { buffers, memory, path: searchPath } = await settings(db);
        expect(buffers).toBe("512kB");
        expect(Number.parseInt(memory, 10)).toBeLessThanOrEqual(4);
        // PGlite's own defaults are kept beside them.
        expect(searchPath).toBe("public");
        expect((await db.query(STEM)).rows).toEqual([{ v: "'connect':1 'run':3" }]);
      } finally {
        await db.close();
      }
    },
    SLOW,
  );

  it(
    "the app's own start parameters win over openPGlite's",
    async () => {
      const db = await openPGlite(undefined, {
        templateDir: cache,
        pglite: { startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=32MB", "-c", "search_path=app,public"] },
      });
      try {
        const { buffers, path: searchPath } = await settings(db);
        expect(buffers).toBe("32MB");
        expect(searchPath).toBe("app,public");
      } finally {
        await db.close();
      }
    },
    SLOW,
  );

  it(
    "without a template, initdb gets the share files too, and the database works",
    async () => {
      const db = await openPGlite(path.join(root, "initdb"), { templateDir: false });
      try {
        expect((await db.query(STEM)).rows).toEqual([{ v: "'connect':1 'run':3" }]);
        await db.query("CREATE TABLE t (v text)");
        await db.query("INSERT INTO t VALUES ($1)", ["kept"]);
        expect((await db.query("SELECT v FROM t")).rows).toEqual([{ v: "kept" }]);
      } finally {
        await db.close();
      }
    },
    SLOW,
  );
});
