// A connections table made by an earlier release lacks the access-token
// columns. They are added in place, with defaults, so every row is kept and
// reads back with no access token ("" and 0).
import { wrapDatabaseError } from "./errors.js";
import type { Queryable } from "./sql.js";

/** The columns added after the first release, with their definitions. */
const ADDED_COLUMNS = [
  ["access_token", "text NOT NULL DEFAULT ''"],
  ["access_token_expires_at", "double precision NOT NULL DEFAULT 0"],
] as const;

/** How long the ALTER may wait for the table's lock before it gives way to the app's own statements. */
const LOCK_TIMEOUT_MS = 2_000;
const ATTEMPTS = 3;

/** The one idempotent statement that brings a table of an earlier release up to date (quoted table name). */
export function upgradeStatement(quoted: string): string {
  return `ALTER TABLE ${quoted}\n${ADDED_COLUMNS.map(([name, type]) => `  ADD COLUMN IF NOT EXISTS ${name} ${type}`).join(",\n")}`;
}

// The table is named as the app named it (maybe without a schema), so it is
// resolved as the search path resolves it (to_regclass), and its columns are
// looked up in pg_attribute by the table's oid. Reading the catalog takes no
// lock on the table, unlike an ALTER TABLE, which waits for every statement
// running on it and holds up every statement after it. pg_attribute rather
// than information_schema.columns: that view joins a dozen catalogs and checks
// privileges column by column: planning it was the slowest step of an
// embedded PGlite's start after PostgreSQL's own, on every start.
const MISSING_COLUMNS = `SELECT wanted.name AS missing
FROM unnest($2::text[]) AS wanted(name)
WHERE to_regclass($1) IS NOT NULL
  AND NOT EXISTS (
    SELECT 1 FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = to_regclass($1) AND a.attname = wanted.name AND a.attnum > 0 AND NOT a.attisdropped
  )`;

/**
 * The ALTER in a DO block: one statement, so `SET LOCAL lock_timeout` holds
 * for exactly this ALTER even over a pool, where two calls may run on two
 * sessions. The table name is a validated, quoted identifier (no `$`), so it
 * cannot end the dollar quote.
 */
function alterWithLockTimeout(quoted: string): string {
  return `DO $fdxkit$ BEGIN
SET LOCAL lock_timeout = '${LOCK_TIMEOUT_MS}ms';
${upgradeStatement(quoted)};
END $fdxkit$`;
}

/** Whether `error` is another instance's ALTER winning, or the table's lock not granted in time: worth one more try. */
function retryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  // 55P03: lock_timeout; 42701: duplicate column; 23505: the race on pg_attribute's unique index.
  return code === "55P03" || code === "42701" || code === "23505";
}

/**
 * Adds the columns an earlier release's table lacks, when it lacks them.
 * Several instances starting at once each find them missing and each ALTER;
 * `IF NOT EXISTS` makes the later ones do nothing, and a loser of the race is
 * tried again. A lock not granted in time is tried again too, then thrown, so
 * a rolling deploy's writers are never queued behind the ALTER for long; the
 * store's next call tries once more.
 */
export async function addMissingColumns(db: Queryable, table: string, quoted: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { rows } = await db.query(MISSING_COLUMNS, [quoted, ADDED_COLUMNS.map(([name]) => name)]);
      if (rows.length === 0) return;
      await db.query(alterWithLockTimeout(quoted), []);
      return;
    } catch (error) {
      if (!retryable(error) || attempt >= ATTEMPTS) throw wrapDatabaseError(error, "createTable", table);
    }
  }
}
