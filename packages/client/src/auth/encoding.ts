// Base64url and randomness for state, nonce, PKCE and the encryption envelope,
// and the reading of AES keys given as base64: Web APIs only.
import type { FdxIssue } from "../core/error.js";

/** Bytes as base64url without padding (RFC 4648 §5). */
export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  // Stryker disable next-line Regex: btoa writes "=" only at the end, so an unanchored pattern strips the same padding
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Base64url (or base64) text as bytes; undefined when it is not base64. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  const normal = text.replace(/-/g, "+").replace(/_/g, "/");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(normal) || normal.length % 4 === 1) return undefined;
  // Stryker disable next-line ArithmeticOperator,StringLiteral: atob (forgiving-base64) also reads unpadded text; the padding only makes the input canonical
  const binary = atob(normal.padEnd(Math.ceil(normal.length / 4) * 4, "="));
  const bytes = new Uint8Array(binary.length);
  // Stryker disable next-line EqualityOperator: a write one past a typed array's end is dropped, so <= gives the same bytes
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** `size` random bytes as base64url: 32 bytes are 256 bits, 43 characters. */
export function randomToken(size = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(size)));
}

/** The PKCE S256 challenge of a verifier (RFC 7636 §4.2). */
export async function s256(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

/** A key id: it is written into sealed values, so it holds no `.` or `|` that could run into the parts around it. */
export const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The raw 256-bit keys of a key id → base64 map; what is wrong goes to `issues`, never quoting a key (it is a secret). */
export function readKeys(keys: unknown, issues: FdxIssue[]): Map<string, Uint8Array<ArrayBuffer>> {
  const raw = new Map<string, Uint8Array<ArrayBuffer>>();
  if (typeof keys !== "object" || keys === null) {
    issues.push({ path: "keys", message: "must be an object of key id to base64 key" });
    return raw;
  }
  for (const [id, value] of Object.entries(keys)) {
    const bytes = typeof value === "string" ? fromBase64(value.trim()) : undefined;
    if (!KEY_ID.test(id)) issues.push({ path: `keys.${id}`, message: "a key id is 1 to 64 letters, digits, _ or -" });
    else if (bytes?.length !== 32) issues.push({ path: `keys.${id}`, message: "must be the base64 of exactly 32 bytes" });
    else raw.set(id, bytes);
  }
  return raw;
}
