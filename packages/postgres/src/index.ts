/**
 * `@fdxkit/postgres`: PostgreSQL stores for fdxkit — end-user connections
 * (`postgresConnectionStore`, a `ConnectionStore` for `createConnections`)
 * and webhook deduplication across receivers (`postgresDedupe`) — over a
 * node-postgres `Pool`/`Client`, an embedded PGlite, or any client with
 * `query(text, params)`, with the table SQL for migrations.
 *
 * @module @fdxkit/postgres
 */
export {
  postgresConnectionStore,
  connectionsTableSql,
  connectionsUpgradeSql,
  type PostgresConnectionStore,
  type PostgresConnectionStoreOptions,
} from "./connection-store.js";
export { postgresDedupe, dedupeTableSql, type PostgresDedupe, type PostgresDedupeOptions } from "./dedupe.js";
export { FdxPostgresError, type PostgresOperation } from "./errors.js";
export type { Queryable } from "./sql.js";
export type { Connection, ConnectionLease, ConnectionStatus, ConnectionStore } from "./types.js";
export { postgresRateBudget, rateBudgetTableSql, type PostgresRateBudget, type PostgresRateBudgetOptions } from "./rate-budget.js";
export { openPGlite, type OpenedPGlite, type OpenPGliteOptions } from "./pglite.js";
