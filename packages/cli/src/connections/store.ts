// Where `fdxkit connect` keeps end users' connections (DESIGN.md §10 "fdxkit
// (CLI)"): a PostgreSQL server named by a postgres:// URL, or an embedded PGlite
// database in a directory — the same store, the same SQL — with the tokens
// encrypted at rest when FDXKIT_ENCRYPTION_KEY is set.
import { mkdir, stat } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { encryptConnectionStore, type ConnectionStore } from "@fdxkit/client/auth";
import { postgresConnectionStore } from "@fdxkit/postgres";
import { UsageError } from "../errors.js";

export const STORE_ENV = "FDXKIT_STORE";
export const KEY_ENV = "FDXKIT_ENCRYPTION_KEY";

type Env = Record<string, string | undefined>;

/** An open store, and how to let go of it (the pool, or the embedded database). */
export interface OpenStore {
  store: ConnectionStore;
  /** Where it is, for messages: the URL without its password, or the directory. */
  where: string;
  close(): Promise<void>;
}

/** `$XDG_DATA_HOME/fdxkit`, else `~/.local/share/fdxkit` (the XDG base directory default). */
export function defaultStoreDir(env: Env): string {
  const xdg = env.XDG_DATA_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || homedir(), ".local", "share");
  return path.join(base, "fdxkit");
}

/**
 * The encryption keys of FDXKIT_ENCRYPTION_KEY: one base64 key (its id is
 * "default"), or `id:base64` entries separated by commas, the first being the
 * one new writes use (list the old ones after it while rotating).
 */
export function parseEncryptionKeys(value: string): { keys: Record<string, string>; current: string } {
  const entries = value
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new UsageError(`${KEY_ENV}: empty`);
  const keys: Record<string, string> = {};
  for (const entry of entries) {
    const colon = entry.indexOf(":");
    const [id, key] = colon === -1 ? ["default", entry] : [entry.slice(0, colon), entry.slice(colon + 1)];
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw new UsageError(`${KEY_ENV}: a key id is 1 to 64 letters, digits, _ or - (as in "k2:BASE64,k1:BASE64")`);
    if (Object.hasOwn(keys, id)) throw new UsageError(`${KEY_ENV}: the key id "${id}" is given twice`);
    keys[id] = key;
  }
  return { keys, current: Object.keys(keys)[0]! };
}

/** Opens the store `spec` names (a postgres:// URL or a directory; default: the XDG data directory). */
export async function openStore(spec: string | undefined, env: Env, addSecrets: (...values: string[]) => void): Promise<OpenStore> {
  const value = spec?.trim() || env[STORE_ENV]?.trim() || defaultStoreDir(env);
  let opened: OpenStore;
  if (/^postgres(ql)?:/i.test(value)) opened = await openPostgres(value, addSecrets);
  else if (/^[A-Za-z][A-Za-z0-9+.-]+:/.test(value)) {
    throw new UsageError(`--store: expected a postgres:// URL or a directory, not a ${value.slice(0, value.indexOf(":"))}: URL`);
  } else opened = await openEmbedded(path.resolve(value));
  const key = env[KEY_ENV];
  if (key === undefined || key.trim() === "") {
    const store = refuseSealed(opened.store);
    // Told here in plain words; past this point the manager's wrapping of store errors would hide why.
    try {
      for await (const _row of store.list()) break;
    } catch (error) {
      await opened.close();
      throw error;
    }
    return { ...opened, store };
  }
  const options = parseEncryptionKeys(key);
  addSecrets(key, ...Object.values(options.keys));
  let store: ConnectionStore;
  try {
    store = encryptConnectionStore(opened.store, options);
  } catch (error) {
    await opened.close();
    // The SDK names keys.<id>; the user set one variable.
    throw new UsageError(`${KEY_ENV}: each key must be the base64 of exactly 32 bytes (e.g. \`openssl rand -base64 32\`)`, { cause: error });
  }
  return { ...opened, store };
}

async function openPostgres(value: string, addSecrets: (...values: string[]) => void): Promise<OpenStore> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError("--store: not a valid postgres:// URL");
  }
  if (url.password) addSecrets(url.password, decodeURIComponent(url.password));
  addSecrets(value);
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: value, max: 4 });
  // An idle client the server drops emits 'error' on the pool: the next query reports it instead.
  pool.on("error", () => undefined);
  return { store: postgresConnectionStore(pool), where: `${url.protocol}//${url.host}${url.pathname}`, close: () => pool.end() };
}

async function openEmbedded(dir: string): Promise<OpenStore> {
  try {
    if (!(await stat(dir)).isDirectory()) throw new UsageError(`--store: ${dir} is a file, not a directory`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    // Tokens live here: readable by this user only.
    await mkdir(dir, { recursive: true, mode: 0o700 });
  }
  const { PGlite } = await import("@electric-sql/pglite");
  let db: InstanceType<typeof PGlite>;
  try {
    db = await PGlite.create(path.join(dir, "connections"));
  } catch (error) {
    throw new UsageError(`--store: could not open the embedded database in ${dir} (is another fdxkit using it?)`, { cause: error });
  }
  return { store: postgresConnectionStore(db), where: dir, close: () => db.close() };
}

/**
 * Without a key, a row whose tokens are sealed must not be used: its
 * ciphertext would go to the IdP as a refresh token, be refused, and the
 * connection would end as if the user had revoked it.
 */
function refuseSealed(store: ConnectionStore): ConnectionStore {
  const check = <T extends { idToken: string; refreshToken: string } | undefined>(row: T): T => {
    if (row && (row.refreshToken.startsWith("fdxenc.") || row.idToken.startsWith("fdxenc."))) {
      throw new UsageError(`the stored connections are encrypted: set ${KEY_ENV} to the key they were written with`);
    }
    return row;
  };
  return {
    get: async (id) => check(await store.get(id)),
    compareAndSet: (id, expected, next) => store.compareAndSet(id, expected, next),
    delete: (id) => store.delete(id),
    list: async function* () {
      for await (const row of store.list()) yield check(row);
    },
    ...(store.findByConsentId ? { findByConsentId: async (consentId: string) => check(await store.findByConsentId!(consentId)) } : {}),
  };
}
