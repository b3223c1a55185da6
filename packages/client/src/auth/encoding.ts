// Base64url and randomness for state, nonce, PKCE and the encryption envelope: Web APIs only.

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
