import { FdxError } from "@fdxkit/client";

/** What a store was doing when the database failed. */
export type PostgresOperation =
  | "createTable"
  | "get"
  | "compareAndSet"
  | "delete"
  | "list"
  | "findByConsentId"
  | "claim"
  | "release"
  | "purge"
  | "take"
  | "pause";

/**
 * A database call of a `@fdxkit/postgres` store failed, or a row it read is
 * not one it could have written (a table someone altered).
 *
 * It never holds the driver's error: PostgreSQL's `detail` repeats the row's
 * values (tokens), node-postgres's message may name the value it could not
 * parse, and PGlite's error carries the statement's parameters. What is kept
 * is the SQLSTATE (or the Node error code of a network failure), the
 * operation and the table, and a message written from those alone.
 */
export class FdxPostgresError extends FdxError {
  static override readonly kind: string = "FdxPostgresError";
  /** The SQLSTATE (e.g. `"57P01"`), a Node error code (e.g. `"ECONNREFUSED"`), or undefined when the driver gave none. */
  declare readonly code: string | undefined;
  /** The store method that failed. */
  declare readonly operation: PostgresOperation;
  /** The table it was using, as given (unquoted). */
  declare readonly table: string;
  /** For a missing column (an altered table): the column's name. */
  declare readonly column: string | undefined;

  constructor(message: string, fields: { code: string | undefined; operation: PostgresOperation; table: string; column?: string | undefined }) {
    super(message);
    this.code = fields.code;
    this.operation = fields.operation;
    this.table = fields.table;
    this.column = fields.column;
  }
}

// Messages of node-postgres and PGlite that hold no value from a row or a
// connection string; any other driver message is left out.
const SAFE_DRIVER_MESSAGES = [
  "Connection terminated unexpectedly",
  "Connection terminated",
  "Connection terminated due to connection timeout",
  "timeout exceeded when trying to connect",
  "Client has encountered a connection error and is not queryable",
  "Client was closed and is not queryable",
  "Cannot use a pool after calling end on the pool",
  "PGlite is closed",
];

function describe(code: string | undefined): string {
  if (code === undefined) return "the database call failed";
  if (/^E[A-Z0-9_]+$/.test(code)) return `the database could not be reached (${code})`;
  switch (code) {
    case "42P01":
      return "the table does not exist";
    case "42703":
      return "the table lacks a column this store needs — was it altered? Compare it with the package's table SQL";
    case "42804":
    case "22P02":
    case "22003":
      return "a column holds another type than this store needs — was the table altered? Compare it with the package's table SQL";
    case "23502":
      return "a column this store does not write is NOT NULL — was the table altered?";
    case "22021":
      return "a value holds a character PostgreSQL cannot store (NUL)";
    case "42501":
      return "the database role lacks a privilege on the table";
    case "3D000":
      return "the database does not exist";
    case "57P01":
    case "57P02":
      return "the server ended the connection (shut down or terminated)";
    case "57P03":
      return "the server is starting or shutting down and cannot accept connections now";
    case "57014":
      return "the statement was cancelled (statement timeout or a cancel request)";
    case "55P03":
      return "the table's lock was not granted in time (a long transaction holds it); the next call tries again";
    case "40001":
    case "40P01":
      return "the statement was rolled back by a serialization failure or deadlock";
  }
  switch (code.slice(0, 2)) {
    case "08":
      return "the connection to the database failed";
    case "28":
      return "the database refused the credentials";
    case "53":
      return "the database server is out of resources";
    case "23":
      return "the database refused the write (an integrity constraint)";
    case "22":
      return "the database refused a value";
    case "42":
      return "the database refused the statement (a changed table or a missing privilege)";
    case "25":
      return "the connection is in a transaction state that refuses the statement (is it inside a failed transaction?)";
  }
  return "the database call failed";
}

/** The store's own typed error for a driver error, keeping nothing the driver said that could hold a value. */
export function wrapDatabaseError(error: unknown, operation: PostgresOperation, table: string, columns: readonly string[] = []): FdxPostgresError {
  if (error instanceof FdxPostgresError) return error;
  const raw = (error as { code?: unknown } | null | undefined)?.code;
  const code = typeof raw === "string" && /^[A-Z0-9_]{1,40}$/.test(raw) ? raw : undefined;
  const message = (error as { message?: unknown } | null | undefined)?.message;
  let column: string | undefined;
  if (code === "42703" && typeof message === "string") {
    // The column's name is one of ours (the statement is the store's own), so it may be named.
    const named = /column "?([A-Za-z_][A-Za-z0-9_]*)"?/.exec(message)?.[1];
    column = named !== undefined && columns.includes(named) ? named : undefined;
  }
  let text = describe(code);
  if (column?.startsWith("access_token")) text = `the table lacks the column "${column}" — was it made by an earlier release? Run connectionsUpgradeSql()`;
  else if (column !== undefined) text = `the table lacks the column "${column}" — was it altered? Compare it with the package's table SQL`;
  if (code === undefined && typeof message === "string" && SAFE_DRIVER_MESSAGES.includes(message)) text += ` (${message})`;
  return new FdxPostgresError(`PostgreSQL store: ${operation} on table "${table}": ${text}${code !== undefined ? ` [${code}]` : ""}`, {
    code,
    operation,
    table,
    column,
  });
}
