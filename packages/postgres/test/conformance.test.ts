// The one ConnectionStore contract (the client's suite, imported by path)
// against both databases the package promises — embedded PGlite and a real
// PostgreSQL server (node-postgres Pool) — and against the client's
// encryptConnectionStore over that server, as an app with encrypted tokens
// runs it.
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, expectTypeOf, it } from "vitest";
// The contract as the client declares it.
import { encryptConnectionStore, type Connection as ClientConnection, type ConnectionStore as ClientConnectionStore } from "@fdxkit/client/auth";
import { describeConnectionStore } from "../../client/test/support/store-conformance.js";
import type { Connection, PostgresConnectionStore } from "../src/index.js";
import { postgresConnectionStore } from "../src/index.js";
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

describeConnectionStore(
  "encrypted (AES-256-GCM) over the PostgreSQL server",
  async () => encryptConnectionStore(postgresConnectionStore(pool!, { table: uniqueTable() }), { keys: { k1: Buffer.alloc(32, 7).toString("base64") }, current: "k1" }),
  { skip: !pool },
);

it("is a ConnectionStore as @fdxkit/client declares it (the package's copy of the types has not drifted)", () => {
  expectTypeOf<PostgresConnectionStore>().toMatchTypeOf<ClientConnectionStore>();
  expectTypeOf<Connection>().toEqualTypeOf<ClientConnection>();
});
