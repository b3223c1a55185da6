import { FdxValidationError } from "@fdxkit/client";
import { wrapDatabaseError, type PostgresOperation } from "./errors.js";

/**
 * What the stores need of a database client: `query(text, params)` resolving
 * to `{ rows }`. node-postgres's `Pool` and `Client`, PGlite, and the
 * serverless Postgres clients that mirror node-postgres all fit.
 */
export interface Queryable {
  /** Runs one parameterized statement. */
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** A table name (optionally `schema.table`) as a quoted SQL identifier; anything else is refused. */
export function quoteTable(table: unknown, option: string): string {
  if (typeof table !== "string") throw new FdxValidationError([{ path: option, message: "the table name must be a string" }]);
  const parts = table.split(".");
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    // The name is not echoed whole: it is the app's input, and may be long or hostile.
    throw new FdxValidationError([
      { path: option, message: 'the table name must be an identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters), optionally "schema.table"' },
    ]);
  }
  return parts.map((part) => `"${part}"`).join(".");
}

/** The unqualified part of a validated table name, for naming its index. */
export function baseName(table: string): string {
  return table.slice(table.lastIndexOf(".") + 1);
}

/** Whether `error` says a concurrent `CREATE … IF NOT EXISTS` got there first. */
function lostCreateRace(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  // 23505: the race on pg_type's unique index; 42P07: duplicate relation; 42710: duplicate object.
  return code === "23505" || code === "42P07" || code === "42710";
}

/**
 * Runs the statements that create a table when it is missing. `CREATE TABLE IF
 * NOT EXISTS` is not atomic against a concurrent one (both see no table, one
 * fails on pg_type's unique index), so the loser runs them again: by then the
 * table exists and `IF NOT EXISTS` skips it. An advisory lock would need one
 * session for lock and unlock, which a pool or an HTTP client does not promise.
 */
export async function createIfMissing(db: Queryable, statements: readonly string[], table: string, quoted: string): Promise<void> {
  const operation: PostgresOperation = "createTable";
  try {
    // Made by the app's migrations already: nothing to do, and no CREATE privilege needed.
    const { rows } = await db.query("SELECT to_regclass($1) IS NOT NULL AS present", [quoted]);
    if ((rows[0] as { present?: unknown } | undefined)?.present === true) return;
  } catch (error) {
    throw wrapDatabaseError(error, operation, table);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      for (const statement of statements) await db.query(statement, []);
      return;
    } catch (error) {
      if (!lostCreateRace(error) || attempt >= 5) throw wrapDatabaseError(error, operation, table);
    }
  }
}

/** Calls `run`, turning any failure into an `FdxPostgresError` that holds nothing the driver said. */
export async function guarded<T>(operation: PostgresOperation, table: string, columns: readonly string[], run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw wrapDatabaseError(error, operation, table, columns);
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why PostgreSQL text would not store `value` as it is, or undefined. A NUL
 * is refused by the server; a lone UTF-16 surrogate is turned into U+FFFD by
 * the driver's UTF-8 encoding, so two different ids would meet in one row.
 */
export function unstorable(value: string): string | undefined {
  if (value.includes("\0")) return "holds a NUL character, which PostgreSQL text cannot store";
  if (LONE_SURROGATE.test(value)) return "holds a lone UTF-16 surrogate, which UTF-8 text cannot store as it is";
  return undefined;
}

/** An id or other key as a query parameter: a string PostgreSQL stores as it is. Checked before any statement is sent. */
export function checkKey(value: unknown, path: string): string {
  if (typeof value !== "string") throw new FdxValidationError([{ path, message: "must be a string" }]);
  // Not echoed: an id may be anything the app was given.
  const why = unstorable(value);
  if (why !== undefined) throw new FdxValidationError([{ path, message: why }]);
  return value;
}
