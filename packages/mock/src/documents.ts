// The second origin of `documents: "redirect"`: statement documents behind
// short-lived signed URLs, answered the way object stores answer them (a
// request that also carries `Authorization` is refused), so a client that
// forwards the bearer token to the document host is caught.

/** How long a signed document URL stays valid. */
export const DOCUMENT_URL_TTL_MS = 15 * 60 * 1000;

/** The statement a signed URL names. */
export interface DocumentRef {
  providerId: string;
  accountId: string;
  statementId: string;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** An object-store style XML error (S3's shape), as a document host would send it. */
export function storageError(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  const escapeXml = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error>`;
  return new Response(body, { status, headers: { "Content-Type": "application/xml", ...headers } });
}

/** Signs and checks single-statement URLs with an HMAC key of this instance. */
export class DocumentSigner {
  readonly #origin: string;
  #key: Promise<CryptoKey> | undefined;

  constructor(documentsUrl: string) {
    this.#origin = new URL(documentsUrl).origin;
  }

  get origin(): string {
    return this.#origin;
  }

  #hmac(text: string): Promise<string> {
    this.#key ??= globalThis.crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]) as Promise<CryptoKey>;
    return this.#key
      .then((key) => globalThis.crypto.subtle.sign("HMAC", key, new TextEncoder().encode(text)))
      .then((signature) => toBase64Url(new Uint8Array(signature)));
  }

  /** An absolute URL on the documents origin for this one statement, valid for {@link DOCUMENT_URL_TTL_MS}. */
  async sign(ref: DocumentRef, now = Date.now()): Promise<string> {
    const path = `/${[ref.providerId, ref.accountId, ref.statementId].map(encodeURIComponent).join("/")}`;
    const expires = String(now + DOCUMENT_URL_TTL_MS);
    const signature = await this.#hmac(`${path}\n${expires}`);
    return `${this.#origin}${path}?expires=${expires}&signature=${signature}`;
  }

  /** The statement a request's URL names, or the object store's refusal. */
  async verify(request: Request, now = Date.now()): Promise<DocumentRef | Response> {
    if (request.headers.has("Authorization")) {
      return storageError(
        400,
        "InvalidArgument",
        "Only one auth mechanism allowed; only the signature query parameters or the Authorization header should be specified",
      );
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return storageError(405, "MethodNotAllowed", "The specified method is not allowed against this resource.", { Allow: "GET, HEAD" });
    }
    const url = new URL(request.url);
    const expires = url.searchParams.get("expires");
    const signature = url.searchParams.get("signature");
    if (expires === null || signature === null)
      return storageError(403, "AccessDenied", "Query-string authentication requires the expires and signature parameters");
    if ((await this.#hmac(`${url.pathname}\n${expires}`)) !== signature) {
      return storageError(403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.");
    }
    if (now > Number(expires)) return storageError(403, "AccessDenied", "Request has expired");
    // Signed by this instance, so the path has exactly the three encoded segments it was given.
    const [providerId = "", accountId = "", statementId = ""] = url.pathname.slice(1).split("/").map(decodeURIComponent);
    return { providerId, accountId, statementId };
  }
}
