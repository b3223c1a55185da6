// The one ConnectionStore contract (the client's suite, imported by path)
// against both databases the package promises — embedded PGlite and a real
// PostgreSQL server (node-postgres Pool) — and against the client's
// encryptConnectionStore over that server, as an app with encrypted tokens
// runs it.
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, expect, expectTypeOf, it } from "vitest";
// The contract as the client declares it.
import { encryptConnectionStore, type Connection as ClientConnection, type ConnectionStore as ClientConnectionStore } from "@fdxkit/client/auth";
import { describeConnectionStore } from "../../client/test/support/store-conformance.js";
import type { Connection, PostgresConnectionStore } from "../src/index.js";
import { postgresConnectionStore } from "../src/index.js";
import { memoryPGlite, postgresUrl, uniqueTable } from "./support.js";

let lite: PGlite | undefined;
const pool = postgresUrl ? new pg.Pool({ connectionString: postgresUrl, max: 10 }) : undefined;
afterAll(async () => {
  await lite?.close();
  await pool?.end();
});

describeConnectionStore("PGlite", async () => {
  lite ??= await memoryPGlite();
  return postgresConnectionStore(lite, { table: uniqueTable() });
});

describeConnectionStore("PostgreSQL server (pg Pool)", async () => postgresConnectionStore(pool!, { table: uniqueTable() }), { skip: !pool });

describeConnectionStore(
  "encrypted (AES-256-GCM) over the PostgreSQL server",
  async () =>
    encryptConnectionStore(postgresConnectionStore(pool!, { table: uniqueTable() }), { keys: { k1: Buffer.alloc(32, 7).toString("base64") }, current: "k1" }),
  { skip: !pool },
);

it("is a ConnectionStore as @fdxkit/client declares it (the package's copy of the types has not drifted)", () => {
  expectTypeOf<PostgresConnectionStore>().toMatchTypeOf<ClientConnectionStore>();
  expectTypeOf<Connection>().toEqualTypeOf<ClientConnection>();
});

it("through encryptConnectionStore, a row edited in the database (SQL) is refused as undecryptable, never used", async () => {
  lite ??= await memoryPGlite();
  const table = uniqueTable();
  const store = encryptConnectionStore(postgresConnectionStore(lite, { table }), { keys: { k1: Buffer.alloc(32, 7).toString("base64") }, current: "k1" });
  const row = (id: string, version = 1): ClientConnection => ({
    id,
    status: "active",
    idToken: `id-${id}`,
    refreshToken: `refresh-${id}-v${version}`,
    expiresAt: 1_900_000_000_000,
    accessToken: `access-${id}`,
    accessTokenExpiresAt: 1_900_000_000_000,
    accounts: [`acct-${id}`],
    subject: `sub-${id}`,
    connector: "mikomo",
    consentId: `consent-${id}`,
    issuer: "/sandbox",
    clientId: "client-1",
    createdAt: 1,
    updatedAt: 1,
    version,
  });
  await store.compareAndSet("a", 0, row("a"));
  await store.compareAndSet("b", 0, row("b"));
  const {
    rows: [old],
  } = await lite.query<{ refresh_token: string }>(`SELECT refresh_token FROM "${table}" WHERE id = 'a'`);
  await store.compareAndSet("a", 1, row("a", 2));
  const refused = async (read: Promise<unknown>, id: string) =>
    expect(
      await read.then(
        () => "opened",
        (e: unknown) => e,
      ),
    ).toMatchObject({ name: "FdxConnectionStoreError", reason: "undecryptable", connectionId: id });

  await lite.query(`UPDATE "${table}" SET refresh_token = $1 WHERE id = 'a'`, [old!.refresh_token]);
  await refused(store.get("a"), "a");
  await lite.query(`UPDATE "${table}" SET consent_id = 'consent-a' WHERE id = 'b'`);
  await refused(store.get("b"), "b");
  await lite.query(`UPDATE "${table}" SET consent_id = 'consent-b', accounts = '["acct-b", "acct-a"]' WHERE id = 'b'`);
  await refused(store.findByConsentId!("consent-b"), "b");
  await lite.query(`UPDATE "${table}" SET accounts = '["acct-b"]' WHERE id = 'b'`);
  expect(await store.findByConsentId!("consent-b")).toEqual(row("b"));
});
