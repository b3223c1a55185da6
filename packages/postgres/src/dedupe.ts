import { FdxValidationError } from "@fdxkit/client";
import { baseName, checkKey, createIfMissing, guarded, quoteTable, type Queryable } from "./sql.js";

/** Options of {@link postgresDedupe}. */
export interface PostgresDedupeOptions {
  /** The table, optionally `schema.table` (an identifier; it is quoted). Default `"fdxkit_webhook_dedupe"`. */
  table?: string;
  /** Create the table on first use when it is missing. Default `true`. */
  createTable?: boolean;
  /** Delete expired claims before every this many claims of this instance (0: never; call `purge()` yourself). Default 1000. */
  purgeEvery?: number;
}

/**
 * Claims of webhook notification ids shared by every receiver on one
 * database: the `dedupe` of `createWebhookHandler` (`@fdxkit/client/webhooks`).
 */
export interface PostgresDedupe {
  /** Resolves true for the one caller that may handle `notificationId` now: it was never claimed, or its claim expired; false while another claim holds. */
  claim(notificationId: string, ttlMs: number): Promise<boolean>;
  /** Gives the claim up (the handling failed), so a redelivery is handled. */
  release(notificationId: string): Promise<void>;
  /** Deletes expired claims; resolves how many. */
  purge(): Promise<number>;
  /** Creates the table when it is missing (every method does this first). */
  ready(): Promise<void>;
}

/** The statements that create the dedupe table, for an app's own migration tool. */
export function dedupeTableSql(table = "fdxkit_webhook_dedupe"): string {
  return `${dedupeTableStatements(table).join(";\n\n")};\n`;
}

function dedupeTableStatements(table: string): string[] {
  const quoted = quoteTable(table, "table");
  return [
    `CREATE TABLE IF NOT EXISTS ${quoted} (
  id         text PRIMARY KEY,
  expires_at timestamptz NOT NULL
)`,
    `CREATE INDEX IF NOT EXISTS "${baseName(table)}_expires_at_idx" ON ${quoted} (expires_at)`,
  ];
}

const COLUMNS = ["id", "expires_at"] as const;

/**
 * A webhook dedupe store in PostgreSQL, for receivers on several instances:
 * a claim is one `INSERT … ON CONFLICT (id) DO UPDATE … WHERE` the stored
 * claim has expired, `RETURNING` the row only to the caller that wrote it, so
 * of any number of concurrent claims of one id exactly one wins. Expiry is
 * measured on the database's clock (`clock_timestamp()`), the one clock all
 * receivers share. Takes what {@link postgresConnectionStore} takes (a pg
 * `Pool`, PGlite, …).
 *
 * @example
 * ```ts
 * const handler = createWebhookHandler({ onNotification, dedupe: postgresDedupe(pool) });
 * ```
 */
export function postgresDedupe(db: Queryable, options: PostgresDedupeOptions = {}): PostgresDedupe {
  if (db === null || typeof db !== "object" || typeof (db as { query?: unknown }).query !== "function") {
    throw new FdxValidationError([{ path: "db", message: "must have a query(text, params) method (a pg Pool or Client, PGlite, …)" }]);
  }
  const table = options.table ?? "fdxkit_webhook_dedupe";
  const quoted = quoteTable(table, "table");
  const purgeEvery = options.purgeEvery ?? 1000;
  if (!Number.isSafeInteger(purgeEvery) || purgeEvery < 0) throw new FdxValidationError([{ path: "purgeEvery", message: "must be an integer >= 0" }]);
  const statements = dedupeTableStatements(table);
  let creating: Promise<void> | undefined;
  const ready = (): Promise<void> => {
    if (options.createTable === false) return Promise.resolve();
    creating ??= createIfMissing(db, statements, table, quoted).catch((error: unknown) => {
      creating = undefined;
      throw error;
    });
    return creating;
  };
  const claimSql = `INSERT INTO ${quoted} AS d (id, expires_at)
VALUES ($1, clock_timestamp() + $2::float8 * interval '1 millisecond')
ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE d.expires_at <= clock_timestamp()
RETURNING id`;
  let claims = 0;

  const purge = async (): Promise<number> => {
    await ready();
    const { rows } = await guarded("purge", table, COLUMNS, () => db.query(`DELETE FROM ${quoted} WHERE expires_at <= clock_timestamp() RETURNING id`, []));
    return rows.length;
  };

  return {
    ready,
    purge,
    async claim(notificationId, ttlMs) {
      checkKey(notificationId, "notificationId");
      if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs < 0) {
        throw new FdxValidationError([{ path: "ttlMs", message: "must be a finite number >= 0" }]);
      }
      // Before the claim, not after: a purge failing after a won claim would
      // fail the delivery while its id stays claimed, and the retry would be
      // answered 200 unhandled.
      if (purgeEvery > 0 && ++claims % purgeEvery === 0) await purge();
      await ready();
      const { rows } = await guarded("claim", table, COLUMNS, () => db.query(claimSql, [notificationId, ttlMs]));
      return rows.length === 1;
    },
    async release(notificationId) {
      checkKey(notificationId, "notificationId");
      await ready();
      await guarded("release", table, COLUMNS, () => db.query(`DELETE FROM ${quoted} WHERE id = $1`, [notificationId]));
    },
  };
}
