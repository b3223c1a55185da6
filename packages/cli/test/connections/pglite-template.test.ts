// openPGlite (from @fdxkit/postgres, the CLI's embedded store): a new
// database starts from a template made once and kept in the cache directory.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openPGlite } from "@fdxkit/postgres";
import { afterAll, describe, expect, it } from "vitest";

// Each open starts an embedded PostgreSQL: seconds each on a busy machine.
const SLOW = 240_000;
const root = mkdtempSync(path.join(tmpdir(), "fdxkit-pglite-"));
const cache = path.join(root, "cache");
afterAll(() => rmSync(root, { recursive: true, force: true }), 60_000);

const templates = () => readdirSync(cache).filter((name) => /^pglite-template-[a-z0-9-]+\.tar$/.test(name));

async function roundTrip(dataDir: string | undefined, value: string): Promise<string[]> {
  const db = await openPGlite(dataDir, { templateDir: cache });
  try {
    await db.query("CREATE TABLE IF NOT EXISTS t (v text)");
    await db.query("INSERT INTO t VALUES ($1)", [value]);
    return ((await db.query("SELECT v FROM t ORDER BY v")).rows as Array<{ v: string }>).map((r) => r.v);
  } finally {
    await db.close();
  }
}

describe("openPGlite", () => {
  it(
    "the first new database saves the template; later ones start from it, each a database of its own",
    async () => {
      expect(await roundTrip(path.join(root, "a"), "a")).toEqual(["a"]);
      const [template] = templates();
      expect(template).toBeDefined();
      const file = path.join(cache, template!);
      const made = statSync(file);
      expect(made.size).toBeGreaterThan(1_000_000);
      expect(made.mode & 0o777).toBe(0o600);
      // initdb's WAL was checkpointed away: the segment kept holds the checkpoint, its zeros kept as a size.
      const listing = execFileSync("tar", ["-tvf", file], { encoding: "utf8" });
      const segment = /^\S+\s+\S+\s+(\d+)\s.*pg_wal\/[0-9A-F]{24}$/m.exec(listing);
      expect(Number(segment?.[1])).toBeLessThan(64 * 1024);

      expect(await roundTrip(path.join(root, "b"), "b")).toEqual(["b"]);
      expect(await roundTrip(undefined, "memory")).toEqual(["memory"]);
      // Read, never written again.
      expect(statSync(file).mtimeMs).toBe(made.mtimeMs);
      expect(templates()).toEqual([template]);
      // An existing database opens as it is.
      expect(await roundTrip(path.join(root, "a"), "a2")).toEqual(["a", "a2"]);
    },
    SLOW,
  );

  it(
    "a damaged template is made again, and the database still opens",
    async () => {
      const [template] = templates();
      writeFileSync(path.join(cache, template!), "not a tarball");
      expect(await roundTrip(path.join(root, "c"), "c")).toEqual(["c"]);
      expect(statSync(path.join(cache, template!)).size).toBeGreaterThan(1_000_000);
    },
    SLOW,
  );
});
