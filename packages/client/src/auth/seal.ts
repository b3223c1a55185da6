// The pending authorization (state, nonce and PKCE verifier) between "connect"
// and the callback, sealed into one cookie-sized string, so that the callback
// can land on any instance that holds the keys: no session store is needed.
// AES-256-GCM over Web Crypto; the purpose label, the key id and the
// connection id are associated data, so a value sealed for one user, or for
// another use of the same keys, does not open for another.
import { checkInteger } from "../internal/checks.js";
import { FdxValidationError, type FdxIssue } from "../core/error.js";
import type { AuthorizationRequest } from "./auth-client.js";
import { base64url, fromBase64, KEY_ID, readKeys } from "./encoding.js";
import { FdxAuthError } from "./errors.js";

/** What the callback is checked against: the three values of an {@link AuthorizationRequest}. */
export type PendingAuthorization = Pick<AuthorizationRequest, "state" | "nonce" | "codeVerifier">;

/** Options of {@link sealAuthorization}. */
export interface SealAuthorizationOptions {
  /** The id the connection will be completed under, from the app's own signed-in session. */
  connectionId: string;
  /** Key id → base64 (or base64url) of exactly 32 random bytes. Ids: letters, digits, `_` and `-`. */
  keys: Record<string, string>;
  /** The key id that seals. */
  current: string;
  /** How long the sealed value opens, in milliseconds; 10 minutes unless given. */
  ttlMs?: number | undefined;
}

/** Options of {@link openAuthorization}. */
export interface OpenAuthorizationOptions {
  /** The id of the connection being completed, from the app's own signed-in session (never from the callback). */
  connectionId: string;
  /** The same keys as sealed; older keys still open what they sealed. */
  keys: Record<string, string>;
}

const VERSION = "v1";
const PURPOSE = "fdxkit-authorization";
const FIELDS = ["state", "nonce", "codeVerifier"] as const;
/** A cookie holds about 4 KiB with its name and attributes; a quarter of it leaves room for the app's other cookies. */
const MAX_SEALED = 1024;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals `state`, `nonce` and `codeVerifier` with an expiry into one
 * base64url string (parts joined by dots) of at most 1 KiB, for an
 * HttpOnly, SameSite=Lax cookie. Invalid keys, a `current` not among them,
 * an empty connection id or value, a `ttlMs` that is not a positive whole
 * number, or values too long to fit throw `FdxValidationError`.
 */
export async function sealAuthorization(request: PendingAuthorization, options: SealAuthorizationOptions): Promise<string> {
  const issues: FdxIssue[] = [];
  for (const field of FIELDS) {
    if (typeof request?.[field] !== "string" || request[field] === "") issues.push({ path: `request.${field}`, message: "must be a non-empty string" });
  }
  checkConnectionId(options?.connectionId, issues);
  const raw = readKeys(options?.keys, issues);
  const keys: object = typeof options?.keys === "object" && options.keys !== null ? options.keys : {};
  if (typeof options?.current !== "string" || !Object.hasOwn(keys, options.current))
    issues.push({ path: "current", message: "must be one of the key ids of keys" });
  const ttlMs = options?.ttlMs ?? 600_000;
  checkInteger(ttlMs, 1, "ttlMs", issues);
  if (issues.length) throw new FdxValidationError(issues);

  const keyId = options.current;
  const plain = JSON.stringify([Date.now() + ttlMs, request.state, request.nonce, request.codeVerifier]);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const key = await importKey(raw.get(keyId)!);
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: associatedData(keyId, options.connectionId) }, key, new TextEncoder().encode(plain)),
  );
  const joined = new Uint8Array(IV_BYTES + sealed.length);
  joined.set(iv);
  joined.set(sealed, IV_BYTES);
  const text = `${VERSION}.${keyId}.${base64url(joined)}`;
  // The values are not quoted: they are secrets until the callback.
  if (text.length > MAX_SEALED) {
    throw new FdxValidationError([
      {
        path: "request",
        message: `sealed, it is ${text.length} characters, over the ${MAX_SEALED} that fit a cookie: state, nonce and codeVerifier are too long`,
      },
    ]);
  }
  return text;
}

/**
 * Opens what {@link sealAuthorization} sealed, for
 * `connections.complete(id, callbackUrl, …)`. A missing, malformed,
 * tampered or expired value, one sealed with a key id not in `keys`, or one
 * sealed for another connection id throws `FdxAuthError` (`invalid_state`)
 * saying which, though a tampered value and one sealed for another
 * connection id look alike: both fail the cipher's authentication. Invalid
 * keys or an empty connection id throw `FdxValidationError`.
 */
export async function openAuthorization(sealed: string, options: OpenAuthorizationOptions): Promise<PendingAuthorization> {
  const issues: FdxIssue[] = [];
  checkConnectionId(options?.connectionId, issues);
  const raw = readKeys(options?.keys, issues);
  if (issues.length) throw new FdxValidationError(issues);

  if (typeof sealed !== "string" || sealed === "") refuse("is missing (did the cookie come back with the callback?)");
  // Nothing longer was ever sealed, and a hostile cookie costs no decoding.
  if (sealed.length > MAX_SEALED) refuse(`is malformed (${sealed.length} characters, over ${MAX_SEALED})`);
  const [version, keyId, body, ...rest] = sealed.split(".");
  // Stryker disable next-line StringLiteral: with no body the value is refused as malformed below, whatever text stands in for it (none is an IV and a tag)
  const bytes = fromBase64(body ?? "");
  // Stryker disable next-line StringLiteral: with no key id there is no body either, so the value is refused as malformed whatever stands in for the id
  if (version !== VERSION || rest.length || !KEY_ID.test(keyId ?? "") || !bytes || bytes.length < IV_BYTES + TAG_BYTES) refuse("is malformed");
  // The id matched KEY_ID above, so quoting it puts no hostile text in the message.
  if (!raw.has(keyId!)) refuse(`was sealed with the key id ${JSON.stringify(keyId)}, which is not among the keys`);
  let opened: ArrayBuffer;
  try {
    const key = await importKey(raw.get(keyId!)!);
    opened = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes!.subarray(0, IV_BYTES), additionalData: associatedData(keyId!, options.connectionId) },
      key,
      bytes!.subarray(IV_BYTES),
    );
  } catch {
    return refuse("does not open: it was changed, or sealed for another connection id or with another key of that id");
  }
  const [expiresAt, state, nonce, codeVerifier] = parse(opened);
  if (Date.now() >= expiresAt) refuse(`expired at ${new Date(expiresAt).toISOString()}`);
  return { state, nonce, codeVerifier };
}

function refuse(why: string): never {
  throw new FdxAuthError({ error: "invalid_state", errorDescription: `the sealed authorization ${why}` });
}

/** The opened plain text: only a value this SDK sealed (with the app's key) gets here, so any other shape is a bug or a misused key. */
function parse(opened: ArrayBuffer): [number, string, string, string] {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(opened));
  } catch {
    // Left undefined, which the shape check below refuses.
  }
  const ok = Array.isArray(value) && value.length === 4 && Number.isFinite(value[0]) && value.slice(1).every((v) => typeof v === "string" && v !== "");
  return ok ? (value as [number, string, string, string]) : refuse("is malformed inside");
}

function checkConnectionId(id: unknown, issues: FdxIssue[]): void {
  if (typeof id !== "string" || id === "") issues.push({ path: "connectionId", message: "must be a non-empty string" });
}

/** The keys as bytes, each checked as `encryptConnectionStore` checks its own. */
function importKey(raw: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  // Stryker disable next-line BooleanLiteral: the key object never leaves this module, so whether it could be exported is not observable
  return crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** Bound, not stored: the sealed value does not grow with the connection id. Key ids hold no `|`, so the parts cannot run into each other. */
function associatedData(keyId: string, connectionId: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`${PURPOSE}|${keyId}|${connectionId}`);
}
