// Tokens at rest: AES-256-GCM over Web Crypto, one envelope per value with
// the key id in it. The associated data binds each value to its key,
// connection and field, and to the row's version and the columns that decide
// whose data is read, so a value copied to another row or field, an older
// value written back under a newer version, or an edited column does not
// decrypt.
import { FdxValidationError, type FdxIssue } from "../core/error.js";
import { base64url, fromBase64, readKeys } from "./encoding.js";
import { FdxConnectionStoreError } from "./errors.js";
import { associatedData, rowBinding, TOKEN_FIELDS, type TokenField } from "./row-binding.js";
import type { Connection, ConnectionStore } from "./types.js";

/** Options of {@link encryptConnectionStore}. */
export interface EncryptionOptions {
  /** Key id → base64 (or base64url) of exactly 32 random bytes. Ids: letters, digits, `_` and `-`. */
  keys: Record<string, string>;
  /** The key id every write uses. */
  current: string;
  /**
   * Rows sealed by the previous envelope format (`fdxenc.v1.`, which binds no
   * column) and their empty tokens: `"accept"` (the default) opens them and
   * the next write or `rekey()` re-seals them; `"refuse"` treats them as
   * undecryptable — for after `rekey()` has re-sealed every row.
   */
  legacyEnvelopes?: "accept" | "refuse";
}

/** A store whose tokens are encrypted; `rekey()` rewrites every row with the current key and resolves how many it rewrote. */
export interface EncryptedConnectionStore extends ConnectionStore {
  /** Rewrites every row not yet under the current key and envelope format (so an old key can be retired); resolves how many it rewrote. */
  rekey(): Promise<number>;
}

/** What every envelope of every format starts with: a stored token that starts with it was sealed by this wrapper. */
export const SEALED_PREFIX = "fdxenc.";
const PREFIX = `${SEALED_PREFIX}v2.`;
const LEGACY_PREFIX = `${SEALED_PREFIX}v1.`;
const PURPOSE = "fdxkit-connection.v2";

/** The raw keys of the options, or the list of what is wrong with them (never a key itself: it is a secret). */
function readOptions(options: EncryptionOptions | undefined): Map<string, Uint8Array<ArrayBuffer>> {
  const issues: FdxIssue[] = [];
  const keys = options?.keys;
  const raw = readKeys(keys, issues);
  if (typeof options?.current !== "string" || !Object.hasOwn(keys ?? {}, options.current))
    issues.push({ path: "current", message: "must be one of the key ids of keys" });
  const legacy = options?.legacyEnvelopes;
  if (legacy !== undefined && legacy !== "accept" && legacy !== "refuse") issues.push({ path: "legacyEnvelopes", message: 'must be "accept" or "refuse"' });
  if (issues.length) throw new FdxValidationError(issues);
  return raw;
}

/** The parts of an envelope after its prefix, or undefined when it is malformed. */
function parseEnvelope(body: string): { keyId: string; iv: Uint8Array<ArrayBuffer>; sealed: Uint8Array<ArrayBuffer> } | undefined {
  const [keyId, ivText, sealedText, ...rest] = body.split(".");
  // Stryker disable next-line StringLiteral: any fallback that is not 12 bytes of base64 is the same malformed envelope
  const iv = fromBase64(ivText ?? "");
  // Stryker disable next-line StringLiteral: any fallback that is not 16+ bytes of base64 is the same malformed envelope
  const sealed = fromBase64(sealedText ?? "");
  if (rest.length || !keyId || iv?.length !== 12 || !sealed || sealed.length < 16) return undefined;
  return { keyId, iv, sealed };
}

/**
 * Wraps any {@link ConnectionStore} so that its id, refresh and access tokens
 * are stored AES-256-GCM encrypted, each bound to its row's version and
 * columns. Older keys still decrypt; every write uses `current` and re-seals.
 * Keys that are not exactly 32 bytes, or a `current` that is not among them,
 * throw `FdxValidationError` here. A stored value that is not an envelope, or
 * that does not open with its key under the row as stored (a column edited,
 * an older value written back), throws `FdxConnectionStoreError`
 * (`undecryptable`) — never a wrong token. Empty values (a revoked
 * connection's) are sealed too, so their rows are bound as well.
 */
export function encryptConnectionStore(store: ConnectionStore, options: EncryptionOptions): EncryptedConnectionStore {
  const raw = readOptions(options);
  const current = options.current;
  const refuseLegacy = options.legacyEnvelopes === "refuse";
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

  const seal = async (row: Connection, field: TokenField, binding: readonly unknown[]) => {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const additionalData = associatedData(PURPOSE, current, row.id, field, binding);
    const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData }, await key(current), new TextEncoder().encode(row[field] ?? ""));
    return `${PREFIX}${current}.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
  };

  /** Opens one value; `binding` is the row's for an envelope of the current format, undefined for the previous one. */
  const open = async (row: Connection, field: TokenField, binding: readonly unknown[] | undefined) => {
    const value: unknown = row[field] ?? "";
    const fail = (why: string): never => {
      throw new FdxConnectionStoreError(`The ${field} of connection ${JSON.stringify(row.id)} does not decrypt: ${why}`, {
        connectionId: row.id,
        reason: "undecryptable",
      });
    };
    const mixed = "the row mixes envelope formats (a value was moved in from another row or version)";
    // The previous format left an erased token empty; the current one seals it.
    if (value === "") return binding ? fail(mixed) : "";
    if (typeof value !== "string" || !(value.startsWith(PREFIX) || value.startsWith(LEGACY_PREFIX))) return fail("it is not an encrypted envelope");
    const prefix = binding ? PREFIX : LEGACY_PREFIX;
    if (!value.startsWith(prefix)) fail(mixed);
    const parts = parseEnvelope(value.slice(prefix.length));
    if (!parts) return fail("the envelope is malformed");
    if (!raw.has(parts.keyId)) fail(`no key has the id ${JSON.stringify(parts.keyId)}`);
    const additionalData = binding
      ? associatedData(PURPOSE, parts.keyId, row.id, field, binding)
      : new TextEncoder().encode(`v1|${parts.keyId}|${row.id}|${field}`);
    try {
      const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: parts.iv, additionalData }, await key(parts.keyId), parts.sealed);
      return new TextDecoder("utf-8", { fatal: true }).decode(plain);
    } catch {
      return fail(
        binding
          ? "a wrong key, or the value or its row was changed (a column edited, or an older value written back)"
          : "a wrong key, or the value was changed or moved",
      );
    }
  };

  // A row is of one format: once any value is of the current one, all must be,
  // or a value of the previous format (which binds no column) could be put
  // into a newer row and open there.
  const isCurrent = (row: Connection) => TOKEN_FIELDS.some((f) => typeof row[f] === "string" && row[f].startsWith(PREFIX));
  const openRow = async (row: Connection | undefined) => {
    if (!row) return undefined;
    const sealedNow = isCurrent(row);
    if (!sealedNow && refuseLegacy) {
      throw new FdxConnectionStoreError(
        `Connection ${JSON.stringify(row.id)} does not decrypt: it is sealed in the previous envelope format, which legacyEnvelopes: "refuse" refuses (run rekey() with "accept" first)`,
        { connectionId: row.id, reason: "undecryptable" },
      );
    }
    const binding = sealedNow ? rowBinding(row) : undefined;
    const opened = await Promise.allSettled(TOKEN_FIELDS.map((f) => open(row, f, binding)));
    // The first field that fails in a fixed order: the same error each time, whichever decryption ends first.
    for (const result of opened) if (result.status === "rejected") throw result.reason;
    const [idToken, refreshToken, accessToken] = opened.map((result) => (result as PromiseFulfilledResult<string>).value);
    return { ...row, idToken: idToken!, refreshToken: refreshToken!, accessToken: accessToken!, accessTokenExpiresAt: row.accessTokenExpiresAt ?? 0 };
  };
  const sealRow = async (row: Connection) => {
    const binding = rowBinding(row);
    const [idToken, refreshToken, accessToken] = await Promise.all(TOKEN_FIELDS.map((f) => seal(row, f, binding)));
    return { ...row, idToken: idToken!, refreshToken: refreshToken!, accessToken: accessToken!, accessTokenExpiresAt: row.accessTokenExpiresAt ?? 0 };
  };
  // Up to date: every value of the current format and under the current key.
  const upToDate = (row: Connection) => TOKEN_FIELDS.every((f) => typeof row[f] === "string" && row[f].startsWith(`${PREFIX}${current}.`));

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
          if (upToDate(row)) break;
          const plain = (await openRow(row))!;
          if (await store.compareAndSet(row.id, row.version, await sealRow({ ...plain, version: row.version + 1 }))) {
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
