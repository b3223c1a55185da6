// Where `fdxkit connect` keeps end users' connections (docs/cli.md, "End-user
// connections"): a PostgreSQL server named by a postgres:// URL, or an embedded PGlite
// database in a directory — the same store, the same SQL — with the tokens
// encrypted at rest unless --plaintext-store says otherwise.
import { chmod, stat } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { encryptConnectionStore, FdxConnectionStoreError, memoryConnectionStore, type ConnectionStore, type EncryptionOptions } from "@fdxkit/client/auth";
import { openPGlite, postgresConnectionStore, type Queryable } from "@fdxkit/postgres";
import { UsageError } from "../errors.js";
import { defaultKeyFile, loadOrCreateKey } from "./key-file.js";
import { DIR_MODE, octal, ownDirectory, privateTree } from "./private-files.js";
import { sealPlainRows } from "./seal-legacy.js";
import { isPostgresUrl } from "../postgres-url.js";

export const STORE_ENV = "FDXKIT_STORE";
export const KEY_ENV = "FDXKIT_ENCRYPTION_KEY";

type Env = Record<string, string | undefined>;

/** An open store, and how to let go of it (the pool, or the embedded database). */
export interface OpenStore {
  store: ConnectionStore;
  /** The database behind it, for what else shares it (the export's rate budget). */
  db: Queryable;
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
export function parseEncryptionKeys(value: string, source = KEY_ENV): { keys: Record<string, string>; current: string } {
  const entries = value
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new UsageError(`${source}: empty`);
  const keys: Record<string, string> = {};
  for (const entry of entries) {
    const colon = entry.indexOf(":");
    const [id, key] = colon === -1 ? ["default", entry] : [entry.slice(0, colon), entry.slice(colon + 1)];
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw new UsageError(`${source}: a key id is 1 to 64 letters, digits, _ or - (as in "k2:BASE64,k1:BASE64")`);
    if (Object.hasOwn(keys, id)) throw new UsageError(`${source}: the key id "${id}" is given twice`);
    keys[id] = key;
  }
  return { keys, current: Object.keys(keys)[0]! };
}

/** What opening a store may tell the user, and the secrets it learns. */
export interface StoreIo {
  addSecrets(...values: string[]): void;
  /** A notice on stderr (a key made, rows sealed, a directory open to others). */
  info(text: string): void;
}

/** `plaintext`: --plaintext-store, the explicit choice to keep tokens unencrypted. */
export interface StoreChoice {
  plaintext?: boolean;
}

/**
 * Opens the store `spec` names (a postgres:// URL or a directory; default:
 * the XDG data directory), with its tokens sealed: by FDXKIT_ENCRYPTION_KEY,
 * else by the key file, made on first use. Rows an earlier version stored in
 * plain text are sealed here, once.
 */
export async function openStore(spec: string | undefined, env: Env, io: StoreIo, choice: StoreChoice = {}): Promise<OpenStore> {
  const value = spec?.trim() || env[STORE_ENV]?.trim() || defaultStoreDir(env);
  const isPostgres = isPostgresUrl(value);
  if (!isPostgres && /^[A-Za-z][A-Za-z0-9+.-]+:/.test(value)) {
    throw new UsageError(`--store: expected a postgres:// URL or a directory, not a ${value.slice(0, value.indexOf(":"))}: URL`);
  }
  // The key before the store: a bad key is refused without opening anything.
  const key = choice.plaintext ? undefined : await storeKey(env, io);
  const opened = isPostgres ? await openPostgres(value, io.addSecrets) : await openEmbedded(path.resolve(value), io);
  try {
    const store = key ? await sealedStore(opened.store, key, io) : refuseSealed(opened.store);
    // Told here in plain words; past this point the manager's wrapping of store errors would hide why.
    for await (const _row of store.list()) break;
    return { ...opened, store };
  } catch (error) {
    await opened.close();
    throw error;
  }
}

interface StoreKey {
  options: EncryptionOptions;
  /** Where the key came from, for messages: the variable or the key file. */
  source: string;
}

/** The key of FDXKIT_ENCRYPTION_KEY, else of the key file (made on first use). */
async function storeKey(env: Env, io: StoreIo): Promise<StoreKey> {
  const fromEnv = env[KEY_ENV]?.trim() ? env[KEY_ENV]! : undefined;
  const file = fromEnv === undefined ? await loadOrCreateKey(defaultKeyFile(env)) : undefined;
  const source = file ? `the key file ${file.path}` : KEY_ENV;
  const text = fromEnv ?? file!.value;
  const options = parseEncryptionKeys(text, source);
  io.addSecrets(text, ...Object.values(options.keys));
  try {
    // Checked here, on a store that holds nothing, so that a bad key fails before the real store opens.
    encryptConnectionStore(memoryConnectionStore(), options);
  } catch (error) {
    // The SDK names keys.<id>; the user set one variable (or has one file).
    throw new UsageError(`${source}: each key must be the base64 of exactly 32 bytes (e.g. \`openssl rand -base64 32\`)`, { cause: error });
  }
  if (file?.created)
    io.info(`fdxkit: made an encryption key for the stored tokens in ${file.path} (keep it: without it they cannot be used; ${KEY_ENV} overrides it)`);
  return { options, source };
}

/** The store behind the encryption; rows still in plain text are sealed first. */
async function sealedStore(raw: ConnectionStore, key: StoreKey, io: StoreIo): Promise<ConnectionStore> {
  const store = encryptConnectionStore(raw, key.options);
  const sealed = await sealPlainRows(raw, store);
  if (sealed > 0) io.info(`fdxkit: sealed the tokens of ${sealed} connection(s) stored in plain text by an earlier version`);
  return refuseForeignKey(store, key.source);
}

/** A postgres:// URL's database (a small pool), as the store and the rate budget open it. */
export async function openPostgres(value: string, addSecrets: (...values: string[]) => void, flag = "--store"): Promise<OpenStore> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag}: not a valid postgres:// URL`);
  }
  if (url.password) addSecrets(url.password, decodeURIComponent(url.password));
  addSecrets(value);
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: value, max: 4 });
  // An idle client the server drops emits 'error' on the pool: the next query reports it instead.
  pool.on("error", () => undefined);
  return { store: postgresConnectionStore(pool), db: pool, where: `${url.protocol}//${url.host}${url.pathname}`, close: () => pool.end() };
}

/** A directory's embedded database (made on first use), as the store and the rate budget open it. */
export async function openEmbedded(dir: string, io: StoreIo, flag = "--store"): Promise<OpenStore> {
  try {
    if (!(await stat(dir)).isDirectory()) throw new UsageError(`${flag}: ${dir} is a file, not a directory`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const own = await ownDirectory(dir);
  if (own.openToOthers) {
    io.info(
      `fdxkit: warning: ${dir} is open to other users (mode ${octal(own.mode)}); fdxkit keeps its own files in it private, but \`chmod 700 ${dir}\` would hide even their names`,
    );
  }
  // The database's own directory is the CLI's: private whatever the directory around it allows.
  // PGlite writes its files 0666; they are made private by one walk once the database is closed
  // (a walk costs a system call per file, a thousand of them), and until then nobody else can
  // reach into the directory to read them.
  const data = path.join(dir, "connections");
  if ((await ownDirectory(data)).mode !== DIR_MODE) await chmod(data, DIR_MODE);
  let db: Awaited<ReturnType<typeof openPGlite>>;
  try {
    db = await openPGlite(data);
  } catch (error) {
    await privateTree(data).catch(() => undefined);
    throw new UsageError(`${flag}: could not open the embedded database in ${dir} (is another fdxkit using it?)`, { cause: error });
  }
  return {
    store: postgresConnectionStore(db),
    db,
    where: dir,
    close: async () => {
      try {
        await db.close();
      } finally {
        // What PGlite wrote while the command ran (WAL segments, relation files) is 0666 until now.
        await privateTree(data);
      }
    },
  };
}

/** An encrypted row that the key in use does not open: the key is the wrong one, said in plain words. */
function refuseForeignKey(store: ConnectionStore, source: string): ConnectionStore {
  const check = async <T>(read: Promise<T>): Promise<T> => {
    try {
      return await read;
    } catch (error) {
      if (error instanceof FdxConnectionStoreError && error.reason === "undecryptable") {
        throw new UsageError(`the stored connections do not decrypt with ${source}: set ${KEY_ENV} to the key they were written with (${error.message})`, {
          cause: error,
        });
      }
      throw error;
    }
  };
  return {
    get: (id) => check(store.get(id)),
    compareAndSet: (id, expected, next) => store.compareAndSet(id, expected, next),
    delete: (id) => store.delete(id),
    list: async function* () {
      const rows = store.list()[Symbol.asyncIterator]();
      for (;;) {
        const next = await check(rows.next());
        if (next.done) return;
        yield next.value;
      }
    },
    ...(store.findByConsentId ? { findByConsentId: (consentId: string) => check(store.findByConsentId!(consentId)) } : {}),
  };
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
