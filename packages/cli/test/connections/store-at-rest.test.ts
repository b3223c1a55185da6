// What `fdxkit connect` leaves on disk, run as users run it (the built bin)
// against the sandbox's IdP: the modes of every file in a --store directory
// that already existed, no token in plain text, the key file, the sealing of
// rows an earlier version stored in plain text, and rows with hostile dates.
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { encryptConnectionStore, type Connection } from "@fdxkit/client/auth";
import { startMockServer, type MockServer } from "@fdxkit/mock";
import { openPGlite, postgresConnectionStore } from "@fdxkit/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, runCli, startCli } from "../helpers.js";
import { countEntries, filesContaining, openEntries } from "./files.js";

// Each step starts the CLI and an embedded PostgreSQL: seconds each on a busy machine.
const SLOW = 240_000;
let mock: MockServer;
let dir: string;

beforeAll(async () => {
  assertBuilt();
  mock = await startMockServer({ port: 0, requireUserTokens: true });
  dir = mkdtempSync(path.join(tmpdir(), "fdxkit-cli-at-rest-"));
});
afterAll(async () => {
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** The sandbox's IdP client, a store, and a config home of the scenario's own (where the key file goes). */
function envFor(store: string, configHome: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    FDXKIT_ISSUER: mock.idpUrl,
    FDXKIT_CLIENT_ID: mock.clientId,
    FDXKIT_CLIENT_SECRET: mock.clientSecret,
    FDXKIT_STORE: store,
    XDG_CONFIG_HOME: configHome,
    ...extra,
  };
}

/** Runs `fdxkit connect` and plays the user's browser. */
async function connect(env: Record<string, string>, args: string[] = []) {
  const cli = startCli(["connect", "--connector", mock.seed.providerId, ...args], env);
  await cli.waitFor(({ stderr }) => /http:\/\/127\.0\.0\.1:\d+\/auth\?\S+/.test(stderr), "the authorization URL");
  const url = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(cli.stderr())![1]!;
  await fetch(await mock.authorize(url));
  return cli.done;
}

/** The rows as stored (tokens as they lie on disk); the CLI must not be running. */
async function rawRows(store: string, run?: (sql: (text: string) => Promise<unknown>) => Promise<void>): Promise<Connection[]> {
  const db = await openPGlite(path.join(store, "connections"));
  try {
    if (run) await run((text) => db.query(text));
    const rows: Connection[] = [];
    for await (const row of postgresConnectionStore(db).list()) rows.push(row);
    return rows;
  } finally {
    await db.close();
  }
}

async function opened(rows: Connection[], key: string): Promise<Connection> {
  const inner = { get: async () => rows[0], compareAndSet: async () => false, delete: async () => undefined, list: async function* () {} };
  return (await encryptConnectionStore(inner, { keys: { default: key }, current: "default" }).get(rows[0]!.id))!;
}

describe("connect into a --store directory that already existed (0755), with no key set", () => {
  const store = () => path.join(dir, "shared-0755");
  const config = () => path.join(dir, "config-a");
  let first: Awaited<ReturnType<typeof connect>>;

  beforeAll(async () => {
    mkdirSync(store());
    chmodSync(store(), 0o755);
    first = await connect(envFor(store(), config()));
  }, SLOW);

  it("connects, warns that the directory is open to others, and keeps that directory's mode", () => {
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(
      `fdxkit: warning: ${store()} is open to other users (mode 0755); fdxkit keeps its own files in it private, but \`chmod 700 ${store()}\` would hide even their names\n`,
    );
    expect(lstatSync(store()).mode & 0o777).toBe(0o755);
  });

  it("leaves no file or directory inside readable by anyone else (files 0600, directories 0700)", () => {
    // A whole PostgreSQL data directory: hundreds of files, each checked.
    expect(countEntries(store())).toBeGreaterThan(500);
    expect(openEntries(store())).toEqual([]);
    expect(lstatSync(path.join(store(), "connections")).mode & 0o777).toBe(0o700);
    expect(lstatSync(path.join(store(), "connections", "PG_VERSION")).mode & 0o777).toBe(0o600);
  });

  it(
    "a later command on a database directory someone opened (0755, a file 0644) keeps it private while it runs, and every file after",
    async () => {
      const data = path.join(store(), "connections");
      chmodSync(data, 0o755);
      chmodSync(path.join(data, "PG_VERSION"), 0o644);
      const env = envFor(store(), config());
      const cli = startCli(["connect", "--connector", mock.seed.providerId], env);
      await cli.waitFor(({ stderr }) => /http:\/\/127\.0\.0\.1:\d+\/auth\?\S+/.test(stderr), "the authorization URL");
      // The database is open, waiting for the user: nobody else can reach into its directory.
      expect(lstatSync(data).mode & 0o777).toBe(0o700);
      await fetch(await mock.authorize(/(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(cli.stderr())![1]!));
      expect((await cli.done).code).toBe(0);
      expect(openEntries(store())).toEqual([]);
    },
    SLOW,
  );

  it("made a key in $XDG_CONFIG_HOME/fdxkit/key (0600, in a 0700 directory) and said where", () => {
    const keyFile = path.join(config(), "fdxkit", "key");
    expect(first.stderr).toContain(
      `fdxkit: made an encryption key for the stored tokens in ${keyFile} (keep it: without it they cannot be used; FDXKIT_ENCRYPTION_KEY overrides it)\n`,
    );
    expect(lstatSync(keyFile).mode & 0o777).toBe(0o600);
    expect(lstatSync(path.dirname(keyFile)).mode & 0o777).toBe(0o700);
    expect(Buffer.from(readFileSync(keyFile, "utf8").trim(), "base64")).toHaveLength(32);
  });

  it(
    "a later command keeps the files private, uses the same key and says nothing more about it",
    async () => {
      const list = await runCli(["connections", "list", "--json"], envFor(store(), config()));
      expect(list.code).toBe(0);
      expect(list.stderr).not.toContain("made an encryption key");
      expect(JSON.parse(list.stdout)).toMatchObject([{ id: "sandbox-bank:user_good", status: "active" }]);
      expect(openEntries(store())).toEqual([]);
    },
    SLOW,
  );

  it(
    "stores no token in plain text: the rows hold envelopes, and no file holds the tokens",
    async () => {
      const rows = await rawRows(store());
      expect(rows).toHaveLength(1);
      expect(rows[0]!.idToken).toMatch(/^fdxenc\.v2\./);
      expect(rows[0]!.refreshToken).toMatch(/^fdxenc\.v2\./);
      const key = readFileSync(path.join(config(), "fdxkit", "key"), "utf8").trim();
      const plain = await opened(rows, key);
      expect(plain.idToken).toMatch(/^eyJ/);
      expect(filesContaining(store(), plain.idToken)).toEqual([]);
      expect(filesContaining(store(), plain.refreshToken)).toEqual([]);
    },
    SLOW,
  );

  it(
    "with another key (FDXKIT_ENCRYPTION_KEY), the stored rows are refused in plain words",
    async () => {
      const other = Buffer.alloc(32, 9).toString("base64");
      const result = await runCli(["connections", "list"], envFor(store(), config(), { FDXKIT_ENCRYPTION_KEY: other }));
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        'error: the stored connections do not decrypt with FDXKIT_ENCRYPTION_KEY: set FDXKIT_ENCRYPTION_KEY to the key they were written with (The idToken of connection "sandbox-bank:user_good" does not decrypt: a wrong key, or the value or its row was changed (a column edited, or an older value written back))\n',
      );
      expect(result.stderr).not.toContain(other);
    },
    SLOW,
  );
});

describe("--plaintext-store, then a run with a key; hostile dates", () => {
  const store = () => path.join(dir, "legacy");
  const config = () => path.join(dir, "config-b");

  it(
    "--plaintext-store keeps the tokens unencrypted and makes no key",
    async () => {
      const result = await connect(envFor(store(), config()), ["--plaintext-store"]);
      expect(result.code).toBe(0);
      expect(result.stderr).not.toContain("encryption key");
      const [row] = await rawRows(store());
      expect(row!.refreshToken).not.toBe("");
      expect(row!.refreshToken).not.toMatch(/^fdxenc\./);
      expect(row!.idToken).toMatch(/^eyJ/);
    },
    SLOW,
  );

  it(
    "the first run with a key seals those rows and says how many; the next run has none left",
    async () => {
      const first = await runCli(["connections", "list"], envFor(store(), config()));
      expect(first.code).toBe(0);
      expect(first.stderr).toContain("fdxkit: sealed the tokens of 1 connection(s) stored in plain text by an earlier version\n");
      const [row] = await rawRows(store());
      expect(row!.idToken).toMatch(/^fdxenc\.v2\./);
      expect(row!.refreshToken).toMatch(/^fdxenc\.v2\./);
      const second = await runCli(["connections", "list"], envFor(store(), config()));
      expect(second.code).toBe(0);
      expect(second.stderr).not.toContain("sealed");
    },
    SLOW,
  );

  it(
    "a row whose dates are no dates (1e303, -1e300) lists as invalid, with the rows after it",
    async () => {
      const copy = async (sql: (text: string) => Promise<unknown>) => {
        // A revoked row after it, with real dates (a revoked row's tokens are empty, so they need no key).
        await sql(
          "INSERT INTO fdxkit_connections SELECT 'zz-later', version, 'revoked', '', '', 1000, accounts, subject, connector, consent_id, issuer, client_id, created_at, 2000, NULL, NULL FROM fdxkit_connections",
        );
        // An active row's columns are bound to its sealed tokens (an edit makes it undecryptable), so the hostile
        // dates go on a row with no tokens, as a store written by an earlier version may hold.
        await sql(
          "INSERT INTO fdxkit_connections SELECT 'sandbox-bank:hostile', version, 'revoked', '', '', 1e303, accounts, subject, connector, consent_id, issuer, client_id, created_at, -1e300, NULL, NULL FROM fdxkit_connections WHERE id = 'sandbox-bank:user_good'",
        );
      };
      await rawRows(store(), copy);
      const text = await runCli(["connections", "list"], envFor(store(), config()));
      expect(text.stderr).toBe("");
      expect(text.code).toBe(0);
      const lines = text.stdout.trim().split("\n");
      expect(lines).toHaveLength(5);
      expect(lines[2]).toMatch(/^sandbox-bank:hostile\s+revoked\s+sandbox-bank\s+.*\s+invalid$/);
      expect(lines[3]).toMatch(/^sandbox-bank:user_good\s+active\s+sandbox-bank\s+.*\s+\d{4}-\d\d-\d\dT/);
      expect(lines[4]).toMatch(/^zz-later\s+revoked\s+.*\s+1970-01-01T00:00:01\.000Z$/);
      const json = await runCli(["connections", "list", "--json"], envFor(store(), config()));
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject([
        { id: "sandbox-bank:hostile", expiresAt: null, updatedAt: null },
        { id: "sandbox-bank:user_good", status: "active" },
        { id: "zz-later", expiresAt: "1970-01-01T00:00:01.000Z", updatedAt: "1970-01-01T00:00:02.000Z" },
      ]);
    },
    SLOW,
  );
});
