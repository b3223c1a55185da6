// Values the IdP hands to a browser and must get back unchanged: the forms'
// tickets and the sign-in session cookie. Each is a JSON payload and an HMAC
// over it and a context (what the value is bound to), with a key of this
// instance that `reset()` replaces.

import { base64url, fromBase64url } from "./jwt.js";

const encoder = new TextEncoder();

/** Compares two strings in time that depends on their length only. */
function equalText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** Signs payloads bound to a context, and reads back only what it signed for that same context. */
export class SignedValues {
  #key: Promise<CryptoKey> | undefined;

  /** A new key: everything signed before is refused from now on. */
  reset(): void {
    this.#key = undefined;
  }

  async #mac(payload: string, context: readonly unknown[]): Promise<string> {
    this.#key ??= globalThis.crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]) as Promise<CryptoKey>;
    const signature = await globalThis.crypto.subtle.sign("HMAC", await this.#key, encoder.encode(`${payload}.${JSON.stringify(context)}`));
    return base64url(new Uint8Array(signature));
  }

  /** `payload` as `base64url(JSON).mac`, valid only with the same `context`. */
  async sign(payload: readonly unknown[], context: readonly unknown[]): Promise<string> {
    const encoded = base64url(encoder.encode(JSON.stringify(payload)));
    return `${encoded}.${await this.#mac(encoded, context)}`;
  }

  /** The payload {@link sign} was given, or `undefined` for a value signed for another context, changed, or not one of ours. */
  async read(value: string, context: readonly unknown[]): Promise<unknown[] | undefined> {
    const [encoded = "", mac, extra] = value.split(".");
    if (mac === undefined || extra !== undefined) return undefined;
    if (!equalText(mac, await this.#mac(encoded, context))) return undefined;
    // Signed here, so it is the JSON array sign() wrote.
    return JSON.parse(new TextDecoder().decode(fromBase64url(encoded))) as unknown[];
  }
}
