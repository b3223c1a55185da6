// Tokens at rest: AES-256-GCM over Web Crypto, one envelope per value with
// the key id in it, and `v1|keyId|connectionId|field` as associated data, so
// a value copied to another row or field does not decrypt (DESIGN.md §10).
import { FdxValidationError, type FdxIssue } from "../core/error.js";
import { base64url, fromBase64 } from "./encoding.js";
import { FdxConnectionStoreError } from "./errors.js";
import type { Connection, ConnectionStore } from "./types.js";

/** Options of {@link encryptConnectionStore}. */
export interface EncryptionOptions {
  /** Key id → base64 (or base64url) of exactly 32 random bytes. Ids: letters, digits, `_` and `-`. */
  keys: Record<string, string>;
  /** The key id every write uses. */
  current: string;
}

/** A store whose tokens are encrypted; `rekey()` rewrites every row with the current key and resolves how many it rewrote. */
export interface EncryptedConnectionStore extends ConnectionStore {
  /** Rewrites every row not yet under the current key with it (so an old key can be retired); resolves how many it rewrote. */
  rekey(): Promise<number>;
}

const PREFIX = "fdxenc.v1.";
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const FIELDS = ["idToken", "refreshToken"] as const;
type Field = (typeof FIELDS)[number];

/**
 * Wraps any {@link ConnectionStore} so that id and refresh tokens are stored
 * AES-256-GCM encrypted. Older keys still decrypt; every write uses
 * `current`. Keys that are not exactly 32 bytes, or a `current` that is not
 * among them, throw `FdxValidationError` here. A stored value that is not an
 * envelope, or that no key of its id opens, throws `FdxConnectionStoreError`
 * (`undecryptable`) — never a wrong token. Empty values (a revoked
 * connection's) stay empty.
 */
export function encryptConnectionStore(store: ConnectionStore, options: EncryptionOptions): EncryptedConnectionStore {
  const issues: FdxIssue[] = [];
  const raw = new Map<string, Uint8Array<ArrayBuffer>>();
  const keys = options?.keys;
  if (typeof keys !== "object" || keys === null) issues.push({ path: "keys", message: "must be an object of key id to base64 key" });
  for (const [id, value] of Object.entries(keys ?? {})) {
    const bytes = typeof value === "string" ? fromBase64(value.trim()) : undefined;
    if (!KEY_ID.test(id)) issues.push({ path: `keys.${id}`, message: "a key id is 1 to 64 letters, digits, _ or -" });
    // The key is not quoted: it is a secret.
    else if (bytes?.length !== 32) issues.push({ path: `keys.${id}`, message: "must be the base64 of exactly 32 bytes" });
    else raw.set(id, bytes);
  }
  if (typeof options?.current !== "string" || !Object.hasOwn(keys ?? {}, options.current)) issues.push({ path: "current", message: "must be one of the key ids of keys" });
  if (issues.length) throw new FdxValidationError(issues);
  const current = options.current;
  const imported = new Map<string, Promise<CryptoKey>>();
  const key = (id: string) => {
    let k = imported.get(id);
    // Stryker disable next-line ConditionalExpression: importing the same raw key again yields a key that seals and opens the same
    if (!k) {
      // Stryker disable next-line BooleanLiteral: the key object never leaves this closure, so extractable is unobservable
      k = crypto.subtle.importKey("raw", raw.get(id)!, "AES-GCM", false, ["encrypt", "decrypt"]);
      imported.set(id, k);
    }
    return k;
  };
  const ad = (keyId: string, connectionId: string, field: Field) => new TextEncoder().encode(`v1|${keyId}|${connectionId}|${field}`);

  const seal = async (connectionId: string, field: Field, value: string) => {
    if (value === "") return "";
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: ad(current, connectionId, field) }, await key(current), new TextEncoder().encode(value));
    return `${PREFIX}${current}.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
  };
  const open = async (connectionId: string, field: Field, value: string) => {
    if (value === "") return "";
    const fail = (why: string): never => {
      throw new FdxConnectionStoreError(`The ${field} of connection ${JSON.stringify(connectionId)} does not decrypt: ${why}`, { connectionId, reason: "undecryptable" });
    };
    if (typeof value !== "string" || !value.startsWith(PREFIX)) fail("it is not an encrypted envelope");
    const [keyId, ivText, sealedText, ...rest] = value.slice(PREFIX.length).split(".");
    // Stryker disable next-line StringLiteral: any fallback that is not 12 bytes of base64 is the same malformed envelope
    const iv = fromBase64(ivText ?? "");
    // Stryker disable next-line StringLiteral: any fallback that is not 16+ bytes of base64 is the same malformed envelope
    const sealed = fromBase64(sealedText ?? "");
    if (rest.length || !keyId || iv?.length !== 12 || !sealed || sealed.length < 16) fail("the envelope is malformed");
    if (!raw.has(keyId!)) fail(`no key has the id ${JSON.stringify(keyId)}`);
    try {
      const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: iv!, additionalData: ad(keyId!, connectionId, field) }, await key(keyId!), sealed!);
      return new TextDecoder("utf-8", { fatal: true }).decode(plain);
    } catch {
      return fail("a wrong key, or the value was changed or moved");
    }
  };
  const openRow = async (row: Connection | undefined) => {
    if (!row) return undefined;
    const [idToken, refreshToken] = await Promise.all(FIELDS.map((f) => open(row.id, f, row[f])));
    return { ...row, idToken: idToken!, refreshToken: refreshToken! };
  };
  const sealRow = async (row: Connection) => {
    const [idToken, refreshToken] = await Promise.all(FIELDS.map((f) => seal(row.id, f, row[f])));
    return { ...row, idToken: idToken!, refreshToken: refreshToken! };
  };
  const keyIdOf = (value: string) => (value === "" ? current : value.slice(PREFIX.length).split(".")[0]);

  const wrapped: EncryptedConnectionStore = {
    get: async (id) => openRow(await store.get(id)),
    compareAndSet: async (id, expectedVersion, next) => store.compareAndSet(id, expectedVersion, await sealRow(next)),
    delete: (id) => store.delete(id),
    async *list() {
      for await (const row of store.list()) yield (await openRow(row))!;
    },
    async rekey() {
      let rewritten = 0;
      for await (const listed of store.list()) {
        // A row written meanwhile is read again: up to a few times, then it is another writer's (with the current key).
        let row: Connection | undefined = listed;
        for (let tries = 0; row && tries < 5; tries++) {
          if (FIELDS.every((f) => keyIdOf(row![f]) === current)) break;
          const plain = (await openRow(row))!;
          if (await store.compareAndSet(row.id, row.version, { ...(await sealRow(plain)), version: row.version + 1 })) {
            rewritten++;
            break;
          }
          row = await store.get(row.id);
        }
      }
      return rewritten;
    },
  };
  const find = store.findByConsentId?.bind(store);
  if (find) wrapped.findByConsentId = async (consentId) => openRow(await find(consentId));
  return wrapped;
}
