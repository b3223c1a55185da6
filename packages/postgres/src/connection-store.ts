import { FdxValidationError } from "@fdxkit/client";
import { FdxPostgresError } from "./errors.js";
import { addMissingColumns, upgradeStatement } from "./migrate.js";
import { baseName, checkKey, createIfMissing, guarded, quoteTable, unstorable, type Queryable } from "./sql.js";
import type { Connection, ConnectionStatus, ConnectionStore } from "./types.js";

/** Options of {@link postgresConnectionStore}. */
export interface PostgresConnectionStoreOptions {
  /** The table, optionally `schema.table` (an identifier; it is quoted, so case counts). Default `"fdxkit_connections"`. */
  table?: string;
  /**
   * Create the table (and its index) on first use when it is missing, and add
   * the columns a table of an earlier release lacks. Default `true`; `false`
   * when migrations own the schema ({@link connectionsTableSql}, {@link connectionsUpgradeSql}).
   */
  createTable?: boolean;
  /** Rows per page of `list()` (keyset pagination by id). Default 500. */
  pageSize?: number;
}

/** A {@link ConnectionStore} in PostgreSQL, with the SQL behind it. */
export interface PostgresConnectionStore extends ConnectionStore {
  /** Finds a connection by its consent grant's id (indexed); the most recently written one when several share it. */
  findByConsentId(consentId: string): Promise<Connection | undefined>;
  /** Creates the table when it is missing, or adds the columns it lacks (every method does this first); resolves once it is ready. */
  ready(): Promise<void>;
}

// In the order of the INSERT's parameters $1…$18.
const COLUMNS = [
  "id",
  "version",
  "status",
  "id_token",
  "refresh_token",
  "expires_at",
  "accounts",
  "subject",
  "connector",
  "consent_id",
  "issuer",
  "client_id",
  "created_at",
  "updated_at",
  "lease_owner",
  "lease_until",
  "access_token",
  "access_token_expires_at",
] as const;

// accounts travels as JSON text both ways: node-postgres, PGlite and HTTP
// clients each parse jsonb and arrays their own way, text they all pass as is.
const SELECT_LIST = COLUMNS.map((c) => (c === "accounts" ? "accounts::text AS accounts" : c)).join(", ");

const STATUSES: readonly ConnectionStatus[] = ["active", "reauthorization_required", "revoked"];

/**
 * The statement that brings a connections table made by an earlier release up
 * to date (it adds the access-token columns, keeping every row), for an app's
 * own migration tool. It does nothing on a table that has them already. The
 * store runs it itself when it finds them missing, unless `createTable: false`.
 */
export function connectionsUpgradeSql(table = "fdxkit_connections"): string {
  return `${upgradeStatement(quoteTable(table, "table"))};\n`;
}

/**
 * The statements that create the connections table and its consent-id index,
 * for an app's own migration tool (the store runs the same ones when the
 * table is missing). `table` is validated and quoted as
 * {@link postgresConnectionStore} does.
 */
export function connectionsTableSql(table = "fdxkit_connections"): string {
  return `${connectionsTableStatements(table).join(";\n\n")};\n`;
}

// Times are epoch milliseconds in double precision, which holds every finite
// JS number exactly: an id token's `exp` may have a fraction (RFC 7519
// NumericDate), and a store must give back what it was given.
function connectionsTableStatements(table: string): string[] {
  const quoted = quoteTable(table, "table");
  return [
    `CREATE TABLE IF NOT EXISTS ${quoted} (
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
  lease_until   double precision,
  access_token  text NOT NULL DEFAULT '',
  access_token_expires_at double precision NOT NULL DEFAULT 0
)`,
    `CREATE INDEX IF NOT EXISTS "${baseName(table)}_consent_id_idx" ON ${quoted} (consent_id)`,
  ];
}

const isInteger = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n);
const isTime = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n);
const isOptionalString = (s: unknown): boolean => s === undefined || s === null || typeof s === "string";

/** Checks a connection before it is written; names the fields that are wrong, never their values. */
function checkConnection(id: string, expectedVersion: number, next: Connection): void {
  if (!isInteger(expectedVersion) || expectedVersion < 0) {
    throw new FdxValidationError([{ path: "expectedVersion", message: "must be an integer >= 0" }]);
  }
  if (next === null || typeof next !== "object") throw new FdxValidationError([{ path: "next", message: "must be a Connection" }]);
  const issues: { path: string; message: string }[] = [];
  const bad = (field: string, message: string) => issues.push({ path: `next.${field}`, message });
  if (next.id !== id) bad("id", "must equal the id written");
  if (next.version !== expectedVersion + 1) bad("version", "must be expectedVersion + 1");
  if (!STATUSES.includes(next.status)) bad("status", `must be one of ${STATUSES.join(", ")}`);
  for (const field of ["idToken", "refreshToken", "subject", "issuer", "clientId"] as const) {
    if (typeof next[field] !== "string") bad(field, "must be a string");
    else if (unstorable(next[field])) bad(field, unstorable(next[field])!);
  }
  for (const field of ["connector", "consentId"] as const) {
    if (!isOptionalString(next[field])) bad(field, "must be a string or undefined");
    else if (typeof next[field] === "string" && unstorable(next[field])) bad(field, unstorable(next[field])!);
  }
  for (const field of ["expiresAt", "createdAt", "updatedAt"] as const) if (!isTime(next[field])) bad(field, "must be a finite number (epoch ms)");
  // A row from code older than the access token has neither field: it is stored as no access token.
  if (next.accessToken !== undefined && typeof next.accessToken !== "string") bad("accessToken", "must be a string or undefined");
  else if (typeof next.accessToken === "string" && unstorable(next.accessToken)) bad("accessToken", unstorable(next.accessToken)!);
  if (next.accessTokenExpiresAt !== undefined && !isTime(next.accessTokenExpiresAt))
    bad("accessTokenExpiresAt", "must be a finite number (epoch ms) or undefined");
  if (!Array.isArray(next.accounts) || !next.accounts.every((a) => typeof a === "string" && !unstorable(a))) {
    bad("accounts", "must be an array of strings PostgreSQL can store (no NUL, no lone surrogate)");
  }
  if (next.lease !== undefined && next.lease !== null) {
    if (typeof next.lease.owner !== "string" || unstorable(next.lease.owner)) bad("lease.owner", "must be a string PostgreSQL can store");
    if (!isTime(next.lease.until)) bad("lease.until", "must be a finite number (epoch ms)");
  }
  if (issues.length) throw new FdxValidationError(issues);
}

function parameters(next: Connection): unknown[] {
  return [
    next.id,
    next.version,
    next.status,
    next.idToken,
    next.refreshToken,
    next.expiresAt,
    JSON.stringify(next.accounts),
    next.subject,
    next.connector ?? null,
    next.consentId ?? null,
    next.issuer,
    next.clientId,
    next.createdAt,
    next.updatedAt,
    next.lease?.owner ?? null,
    next.lease?.until ?? null,
    next.accessToken ?? "",
    next.accessTokenExpiresAt ?? 0,
  ];
}

/**
 * A row as read, back to a `Connection`. The int8 version arrives as a
 * string (node-postgres), a number (PGlite) or a bigint, so each is converted and
 * checked; a row this store could not have written (a table someone altered
 * or filled by hand) is an error, not a connection with holes.
 */
function toConnection(row: unknown, table: string, operation: "get" | "list" | "findByConsentId"): Connection {
  const r = row as Record<string, unknown>;
  const broken = (column: string) =>
    new FdxPostgresError(
      `PostgreSQL store: ${operation} on table "${table}": a row's "${column}" is not a value this store writes — was the table altered or written by hand?`,
      { code: undefined, operation, table, column },
    );
  const text = (column: string): string => {
    if (typeof r[column] !== "string") throw broken(column);
    return r[column];
  };
  const optionalText = (column: string): string | undefined => (r[column] === null || r[column] === undefined ? undefined : text(column));
  const integer = (column: string): number => {
    const value = r[column];
    const n = typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : typeof value === "bigint" ? Number(value) : value;
    if (!isInteger(n)) throw broken(column);
    return n;
  };
  const time = (column: string): number => {
    const value = r[column];
    const n = typeof value === "string" && /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(value) ? Number(value) : value;
    if (!isTime(n)) throw broken(column);
    return n;
  };
  const status = text("status") as ConnectionStatus;
  if (!STATUSES.includes(status)) throw broken("status");
  let accounts: unknown;
  try {
    accounts = JSON.parse(text("accounts"));
  } catch {
    throw broken("accounts");
  }
  if (!Array.isArray(accounts) || !accounts.every((a) => typeof a === "string")) throw broken("accounts");
  const connection: Connection = {
    id: text("id"),
    status,
    idToken: text("id_token"),
    refreshToken: text("refresh_token"),
    expiresAt: time("expires_at"),
    // NULL only in a column someone added by hand without the default: no access token, as the default says.
    accessToken: r.access_token === null ? "" : text("access_token"),
    accessTokenExpiresAt: r.access_token_expires_at === null ? 0 : time("access_token_expires_at"),
    accounts,
    subject: text("subject"),
    connector: optionalText("connector"),
    consentId: optionalText("consent_id"),
    issuer: text("issuer"),
    clientId: text("client_id"),
    createdAt: time("created_at"),
    updatedAt: time("updated_at"),
    version: integer("version"),
  };
  const owner = optionalText("lease_owner");
  if (owner !== undefined) connection.lease = { owner, until: time("lease_until") };
  return connection;
}

/**
 * A {@link ConnectionStore} over PostgreSQL: anything with `query(text,
 * params)` resolving to `{ rows }` — a node-postgres `Pool` or `Client`, a
 * PGlite instance, a serverless client — with the same SQL on each.
 *
 * - `compareAndSet` is one statement: `INSERT … ON CONFLICT (id) DO NOTHING`
 *   for version 0, `UPDATE … WHERE id = $1 AND version = $19` otherwise, each
 *   `RETURNING` the row it wrote; of many concurrent writers of a version,
 *   exactly one wins.
 * - The table is created on first use when missing (safe when several
 *   instances start at once); {@link connectionsTableSql} gives the SQL to
 *   migrations instead. A table of an earlier release gains the access-token
 *   columns in place, rows kept ({@link connectionsUpgradeSql} for migrations).
 * - `list()` reads pages of `pageSize` rows ordered by id (keyset
 *   pagination), never the whole table at once.
 * - Ids and values are always parameters; the table name is validated as an
 *   identifier and quoted.
 * - Database failures throw {@link FdxPostgresError}, which holds no value
 *   of a row; bad arguments throw `FdxValidationError` before any statement.
 *
 * @example
 * ```ts
 * const store = postgresConnectionStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 * ```
 */
export function postgresConnectionStore(db: Queryable, options: PostgresConnectionStoreOptions = {}): PostgresConnectionStore {
  if (db === null || typeof db !== "object" || typeof (db as { query?: unknown }).query !== "function") {
    throw new FdxValidationError([{ path: "db", message: "must have a query(text, params) method (a pg Pool or Client, PGlite, …)" }]);
  }
  const table = options.table ?? "fdxkit_connections";
  const quoted = quoteTable(table, "table");
  const pageSize = options.pageSize ?? 500;
  if (!isInteger(pageSize) || pageSize < 1 || pageSize > 100_000) {
    throw new FdxValidationError([{ path: "pageSize", message: "must be an integer from 1 to 100000" }]);
  }
  const statements = connectionsTableStatements(table);
  let creating: Promise<void> | undefined;
  const ready = (): Promise<void> => {
    if (options.createTable === false) return Promise.resolve();
    // A failed attempt is forgotten, so the next call tries again (the database may be back).
    creating ??= createIfMissing(db, statements, table, quoted)
      .then(() => addMissingColumns(db, table, quoted))
      .catch((error: unknown) => {
        creating = undefined;
        throw error;
      });
    return creating;
  };
  const run = async <T>(operation: "get" | "compareAndSet" | "delete" | "list" | "findByConsentId", body: () => Promise<T>): Promise<T> => {
    await ready();
    return guarded(operation, table, COLUMNS, body);
  };

  const insert = `INSERT INTO ${quoted} (${COLUMNS.join(", ")})
VALUES ($1, $2, $3, $4, $5, $6, $7::text::jsonb, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
ON CONFLICT (id) DO NOTHING
RETURNING version`;
  const update = `UPDATE ${quoted} SET ${COLUMNS.slice(1)
    .map((c, i) => `${c} = $${i + 2}${c === "accounts" ? "::text::jsonb" : ""}`)
    .join(", ")}
WHERE id = $1 AND version = $19
RETURNING version`;
  const selectOne = `SELECT ${SELECT_LIST} FROM ${quoted} WHERE id = $1`;
  const firstPage = `SELECT ${SELECT_LIST} FROM ${quoted} ORDER BY id LIMIT $1`;
  const nextPage = `SELECT ${SELECT_LIST} FROM ${quoted} WHERE id > $2 ORDER BY id LIMIT $1`;
  const byConsent = `SELECT ${SELECT_LIST} FROM ${quoted} WHERE consent_id = $1 ORDER BY updated_at DESC, id LIMIT 1`;

  return {
    ready,
    async get(id) {
      checkKey(id, "id");
      const { rows } = await run("get", () => db.query(selectOne, [id]));
      return rows.length ? toConnection(rows[0], table, "get") : undefined;
    },
    async compareAndSet(id, expectedVersion, next) {
      checkKey(id, "id");
      checkConnection(id, expectedVersion, next);
      const params = parameters(next);
      const { rows } = await run("compareAndSet", () => (expectedVersion === 0 ? db.query(insert, params) : db.query(update, [...params, expectedVersion])));
      return rows.length === 1;
    },
    async delete(id) {
      checkKey(id, "id");
      await run("delete", () => db.query(`DELETE FROM ${quoted} WHERE id = $1`, [id]));
    },
    async *list() {
      let after: string | undefined;
      for (;;) {
        const cursor = after;
        const { rows } = await run("list", () => (cursor === undefined ? db.query(firstPage, [pageSize]) : db.query(nextPage, [pageSize, cursor])));
        const page = rows.map((row) => toConnection(row, table, "list"));
        yield* page;
        if (page.length < pageSize) return;
        after = page[page.length - 1]!.id;
      }
    },
    async findByConsentId(consentId) {
      checkKey(consentId, "consentId");
      const { rows } = await run("findByConsentId", () => db.query(byConsent, [consentId]));
      return rows.length ? toConnection(rows[0], table, "findByConsentId") : undefined;
    },
  };
}
