import { FdxValidationError, type FdxIssue } from "../core/error.js";
import { normalizeFingerprint, withColons } from "./fingerprint.js";
import { parseXfcc } from "./xfcc.js";

/** How the proxy writes the client certificate into its header. */
export type ForwardedCertificateFormat = "xfcc" | "pem" | "sha256";

/** Options of {@link verifyForwardedClientCertificate}. */
export interface ForwardedClientCertificateOptions {
  /** The sender certificates accepted: SHA-256 fingerprints as `createWebhookServer` takes them (`"AB:CD:…"`, any case, colons optional). */
  fingerprints: string[];
  /**
   * Whether the request came through your TLS-terminating proxy: only then is the header believed, since anyone
   * reaching the receiver directly can write it. Check what only the proxy can make true: a secret header it adds, the
   * peer address (Deno's `info.remoteAddr`, Bun's `server.requestIP(request)`), or `true` when nothing but the proxy
   * can connect (a Unix socket, a private interface).
   */
  fromProxy: boolean | ((request: Request) => boolean | Promise<boolean>);
  /** The header the proxy writes. Default `"x-forwarded-client-cert"` (Envoy, Istio). */
  header?: string;
  /**
   * How the header carries the certificate:
   * - `"xfcc"` (default): Envoy's and Istio's `x-forwarded-client-cert` (`Hash=<hex SHA-256>;Cert="<URL-encoded PEM>";…`);
   *   the last element is read, the one the nearest proxy added;
   * - `"pem"`: a URL-encoded PEM certificate (nginx `$ssl_client_escaped_cert`, AWS ALB's `X-Amzn-Mtls-Clientcert`);
   * - `"sha256"`: the SHA-256 fingerprint in hex (HAProxy's `%[ssl_c_der,sha2(256),hex]`). nginx's
   *   `$ssl_client_fingerprint` is SHA-1: forward `$ssl_client_escaped_cert` with `"pem"` instead.
   */
  format?: ForwardedCertificateFormat;
}

/** Why {@link verifyForwardedClientCertificate} did not verify a request. */
export type ForwardedCertificateRefusal =
  /** `fromProxy` said the request did not come through the proxy. */
  | "not-from-proxy"
  /** No such header (the proxy saw no client certificate, or does not forward it). */
  | "missing"
  /** The header holds no certificate or fingerprint in the expected format. */
  | "malformed"
  /** A certificate, but not one of `fingerprints`. */
  | "not-pinned";

/** What {@link verifyForwardedClientCertificate} found. */
export type ForwardedCertificateResult =
  | { verified: true /** The sender's SHA-256 fingerprint, `"AB:CD:…"`. */; fingerprint256: string }
  | { verified: false; reason: ForwardedCertificateRefusal };

/**
 * For receivers behind a proxy that terminates TLS (Envoy, Istio, nginx, a cloud load balancer): checks the client
 * certificate the proxy forwarded in a header against pinned SHA-256 fingerprints, and only when `fromProxy` says the
 * request came through that proxy. The proxy itself must require a client certificate and verify its chain and dates
 * (Envoy: `require_client_certificate` with a validation context and `forward_client_cert_details: SANITIZE_SET`;
 * nginx: `ssl_verify_client on` and `proxy_set_header`, which replaces whatever the client sent). Answer anything not
 * verified with 403 before it reaches `createWebhookHandler`.
 *
 * The header is read strictly: a value that is not well formed (an unclosed quote, a `\` with nothing after it, PEM
 * with anything but whitespace around it, two header lines joined by `, `) is `"malformed"`, never read past, since
 * behind a proxy that appends, its start is the client's.
 *
 * @example
 * ```ts
 * const handle = createWebhookHandler({ onNotification, dedupe: memoryDedupe() });
 * export async function POST(request: Request) {
 *   const sender = await verifyForwardedClientCertificate(request, {
 *     fingerprints: [process.env.FDX_SENDER_FINGERPRINT!],
 *     fromProxy: (r) => r.headers.get("x-proxy-secret") === process.env.PROXY_SECRET,
 *   });
 *   if (!sender.verified) return new Response(null, { status: 403 });
 *   return handle(request);
 * }
 * ```
 *
 * @throws {FdxValidationError} for options it cannot use (no fingerprints, a malformed one, a missing `fromProxy`, an unknown format).
 */
export async function verifyForwardedClientCertificate(request: Request, options: ForwardedClientCertificateOptions): Promise<ForwardedCertificateResult> {
  const { pinned, fromProxy, header, format } = checkOptions(options);
  const trusted = typeof fromProxy === "function" ? await fromProxy(request) : fromProxy;
  if (trusted !== true) return { verified: false, reason: "not-from-proxy" };
  const value = request.headers.get(header);
  if (value === null || value.trim() === "") return { verified: false, reason: "missing" };
  const fingerprint = await fingerprintOf(value, format);
  if (fingerprint === undefined) return { verified: false, reason: "malformed" };
  if (!pinned.has(fingerprint)) return { verified: false, reason: "not-pinned" };
  return { verified: true, fingerprint256: withColons(fingerprint) };
}

const FORMATS: readonly ForwardedCertificateFormat[] = ["xfcc", "pem", "sha256"];

function checkOptions(options: ForwardedClientCertificateOptions) {
  const issues: FdxIssue[] = [];
  if (typeof options !== "object" || options === null) {
    throw new FdxValidationError([{ path: "", message: "options must be an object with fingerprints and fromProxy" }]);
  }
  const { fingerprints, fromProxy, header = "x-forwarded-client-cert", format = "xfcc" } = options;
  const pinned = new Set<string>();
  if (!Array.isArray(fingerprints) || fingerprints.length === 0) {
    issues.push({ path: "fingerprints", message: "must be a non-empty array of SHA-256 fingerprints" });
  } else {
    fingerprints.forEach((value, index) => {
      const normalized = normalizeFingerprint(value);
      if (normalized === undefined) issues.push({ path: `fingerprints.${index}`, message: 'must be a SHA-256 fingerprint ("AB:CD:…", 32 bytes in hex)' });
      else pinned.add(normalized);
    });
  }
  if (typeof fromProxy !== "boolean" && typeof fromProxy !== "function") {
    issues.push({ path: "fromProxy", message: "must be a boolean or a function of the request" });
  }
  if (typeof header !== "string" || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) {
    issues.push({ path: "header", message: "must be a header name" });
  }
  if (!FORMATS.includes(format)) issues.push({ path: "format", message: 'must be "xfcc", "pem" or "sha256"' });
  if (issues.length > 0) throw new FdxValidationError(issues);
  return { pinned, fromProxy, header, format };
}

/** The forwarded certificate's SHA-256 as upper-case hex, or `undefined` when the value holds none or is not well formed. */
async function fingerprintOf(value: string, format: ForwardedCertificateFormat): Promise<string | undefined> {
  if (format === "sha256") return normalizeFingerprint(value.trim());
  if (format === "pem") return hashPem(value);
  const parsed = parseXfcc(value);
  if ("fault" in parsed) return undefined;
  // The last element is the one the nearest proxy added.
  const element = parsed.elements.at(-1)!;
  const hash = element.get("hash");
  if (hash !== undefined) return normalizeFingerprint(hash);
  const cert = element.get("cert");
  return cert === undefined ? undefined : hashPem(cert);
}

const FIRST_PEM = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/;
// Certificates and whitespace only: other text may be a client's forgery that the proxy appended to, so it is refused, not skipped.
const PEM_CHAIN = /^\s*(?:-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----\s*)+$/;

/** SHA-256 of the first certificate of a (possibly URL-encoded) PEM text. */
async function hashPem(value: string): Promise<string | undefined> {
  let pem: string;
  try {
    pem = decodeURIComponent(value);
  } catch {
    return undefined;
  }
  if (!PEM_CHAIN.test(pem)) return undefined;
  const base64 = FIRST_PEM.exec(pem)?.[1]?.replace(/\s+/g, "");
  if (!base64) return undefined;
  let der: Uint8Array<ArrayBuffer>;
  try {
    der = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", der));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex.toUpperCase();
}
