// ES256 JSON Web Tokens with Web Crypto alone: the sandbox IdP signs id
// tokens with a key pair of its own instance and publishes the public half as
// a JWKS. ECDSA in Web Crypto signs in the IEEE P1363 form (r || s) that JWS
// uses, so no DER conversion is needed.

const encoder = new TextEncoder();

/** Base64url without padding (RFC 7515 §2). */
export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Bytes of a base64url text, or `undefined` when it is not one. */
export function fromBase64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** `bytes` random bytes, base64url: codes, refresh tokens, consent ids. */
export function randomToken(bytes = 32): string {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
}

/** BASE64URL(SHA-256(ASCII(text))): the PKCE S256 challenge of a verifier (RFC 7636 §4.2). */
export async function s256(text: string): Promise<string> {
  return base64url(new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", encoder.encode(text))));
}

/** The public key of a signer, as a JWKS entry. */
export interface PublicJwk {
  kty: string;
  crv: string;
  x: string;
  y: string;
  kid: string;
  use: "sig";
  alg: "ES256";
}

/** Signs and checks ES256 JWTs with one key pair made for this instance (lazily, on first use). */
export class JwtSigner {
  #keys: Promise<{ privateKey: CryptoKey; publicKey: CryptoKey; jwk: PublicJwk }> | undefined;

  #load() {
    this.#keys ??= (async () => {
      const pair = (await globalThis.crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
      const { kty = "", crv = "", x = "", y = "" } = await globalThis.crypto.subtle.exportKey("jwk", pair.publicKey);
      // The RFC 7638 thumbprint: a kid that names this very key.
      const thumbprint = JSON.stringify({ crv, kty, x, y });
      const kid = base64url(new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", encoder.encode(thumbprint))));
      return { privateKey: pair.privateKey, publicKey: pair.publicKey, jwk: { kty, crv, x, y, kid, use: "sig", alg: "ES256" } };
    })();
    return this.#keys;
  }

  /** The public key set served at the JWKS endpoint. */
  async jwks(): Promise<{ keys: PublicJwk[] }> {
    return { keys: [(await this.#load()).jwk] };
  }

  /** A compact JWS of `claims`, with `alg: ES256`, `typ: JWT` and the key's `kid`. */
  async sign(claims: Record<string, unknown>): Promise<string> {
    const { privateKey, jwk } = await this.#load();
    const header = base64url(encoder.encode(JSON.stringify({ alg: "ES256", typ: "JWT", kid: jwk.kid })));
    const payload = base64url(encoder.encode(JSON.stringify(claims)));
    const signature = await globalThis.crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, privateKey, encoder.encode(`${header}.${payload}`));
    return `${header}.${payload}.${base64url(new Uint8Array(signature))}`;
  }

  /** The claims of a JWT this signer made, or `undefined` for anything else (another key, a changed byte, not a JWT). */
  async verify(token: string): Promise<Record<string, unknown> | undefined> {
    const parts = token.split(".");
    if (parts.length !== 3) return undefined;
    const [header = "", payload = "", signature = ""] = parts;
    const signatureBytes = fromBase64url(signature);
    const headerBytes = fromBase64url(header);
    const payloadBytes = fromBase64url(payload);
    if (!signatureBytes || !headerBytes || !payloadBytes) return undefined;
    const { publicKey, jwk } = await this.#load();
    try {
      const head = JSON.parse(new TextDecoder().decode(headerBytes)) as { alg?: unknown; kid?: unknown };
      if (head.alg !== "ES256" || head.kid !== jwk.kid) return undefined;
      const valid = await globalThis.crypto.subtle.verify(
        { name: "ECDSA", hash: "SHA-256" },
        publicKey,
        signatureBytes,
        encoder.encode(`${header}.${payload}`),
      );
      if (!valid) return undefined;
      // Signed by this key, so it is the claims object sign() was given.
      return JSON.parse(new TextDecoder().decode(payloadBytes)) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
}

/**
 * OpenID Connect Core §3.1.3.6 `at_hash` for ES256: the left half of the
 * SHA-256 digest of the access token's ASCII bytes, base64url.
 */
export async function accessTokenHash(accessToken: string): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", encoder.encode(accessToken)));
  return base64url(digest.subarray(0, digest.length / 2));
}
