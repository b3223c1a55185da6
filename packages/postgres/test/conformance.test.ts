// The store contract against both databases the package promises: embedded
// PGlite and a real PostgreSQL server (node-postgres Pool).
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll } from "vitest";
import { postgresConnectionStore } from "../src/index.js";
import { describeConnectionStore } from "./conformance.js";
import { postgresUrl, uniqueTable } from "./support.js";

let lite: PGlite | undefined;
const pool = postgresUrl ? new pg.Pool({ connectionString: postgresUrl, max: 10 }) : undefined;
afterAll(async () => {
  await lite?.close();
  await pool?.end();
});

describeConnectionStore("PGlite", async () => {
  lite ??= await PGlite.create();
  return postgresConnectionStore(lite, { table: uniqueTable() });
});

describeConnectionStore("PostgreSQL server (pg Pool)", async () => postgresConnectionStore(pool!, { table: uniqueTable() }), { skip: !pool });
