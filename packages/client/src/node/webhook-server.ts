import { checkInteger } from "../internal/checks.js";
import { createServer, type Server } from "node:https";
import type { Certificate, PeerCertificate, SecureContextOptions, TLSSocket } from "node:tls";
import { FdxError, FdxValidationError, type FdxIssue } from "../core/error.js";
import { normalizeFingerprint } from "../webhooks/fingerprint.js";
import { toNodeListener, type FetchHandler, type NodeListenerOptions } from "./listener.js";

/** The receiver's own certificate and the CA its senders' certificates must chain to. */
export interface WebhookServerTls {
  /** The server's private key (PEM). */
  key: NonNullable<SecureContextOptions["key"]>;
  /** The server's certificate chain (PEM), as senders will verify it. */
  cert: NonNullable<SecureContextOptions["cert"]>;
  /**
   * The CA (PEM, one or several) that signs the senders' client certificates.
   * Only these are trusted for clients: the system's roots are not.
   */
  ca: NonNullable<SecureContextOptions["ca"]>;
  /** Passphrase of an encrypted `key`. */
  passphrase?: string;
}

/** Options of {@link createWebhookServer}. */
export interface WebhookServerOptions {
  /** The Fetch-API handler to serve, such as `createWebhookHandler(…)`. */
  handler: FetchHandler;
  /** Key, certificate and client CA (mutual TLS). */
  tls: WebhookServerTls;
  /**
   * Accept only these exact client certificates (besides being signed by
   * `tls.ca`): SHA-256 fingerprints, colon-separated hex as Node prints them
   * (`"AB:CD:…"`, 32 bytes; case and colons do not matter). Pinning keeps out
   * another certificate the same CA issued (a shared or public CA).
   */
  clientCertificates?: { fingerprints: string[] };
  /**
   * A request whose body is still incomplete this long after it started gets
   * 408 and its connection is closed: slow senders cannot hold memory.
   * Default 10 000.
   */
  bodyTimeoutMs?: number;
}

/** The client certificate a request arrived with, verified by {@link createWebhookServer}. */
export interface WebhookPeerCertificate {
  /** The certificate's subject, as Node gives it (`{ CN: "fdx-webhooks", O: "…" }`). */
  subject: Certificate;
  /** The issuer's name, in the same form. */
  issuer: Certificate;
  /** SHA-256 fingerprint, colon-separated upper-case hex (`"AB:CD:…"`), as pinned. */
  fingerprint256: string;
  /** Serial number, hex. */
  serialNumber: string;
  /** Start of validity, as Node prints it (`"Nov 25 20:17:16 2026 GMT"`). */
  validFrom: string;
  /** End of validity, as Node prints it (`"Nov 25 20:17:16 2027 GMT"`). */
  validTo: string;
}

const DEFAULT_BODY_TIMEOUT_MS = 10_000;

// The peer a request came with. Keyed by the Request the handler gets, so a
// handler (or code it calls) can ask for it with nothing but the request.
const requestPeers = new WeakMap<Request, WebhookPeerCertificate>();

/**
 * A Node `https.Server` (not yet listening) for webhook deliveries over mutual
 * TLS: the sender must present a client certificate signed by `tls.ca` (and,
 * with `clientCertificates.fingerprints`, one of those exact certificates),
 * unexpired. A connection without one is closed during or right after the
 * handshake and never reaches `handler`; each refusal is emitted as the
 * server's `"tlsClientError"` event, for logging. The verified certificate is
 * read with {@link getPeerCertificate}.
 *
 * The handler is served through {@link toNodeListener}, so the handler's own
 * body limit (`maxBodyBytes` of `createWebhookHandler`) holds, and a body not
 * complete after `bodyTimeoutMs` gets 408.
 *
 * @example
 * ```ts
 * const server = createWebhookServer({
 *   handler: createWebhookHandler({ onNotification, dedupe: memoryDedupe() }),
 *   tls: { key: readFileSync("server.key"), cert: readFileSync("server.pem"), ca: readFileSync("fdx-clients-ca.pem") },
 *   clientCertificates: { fingerprints: [process.env.FDX_SENDER_FINGERPRINT!] },
 * });
 * server.listen(8443);
 * ```
 *
 * @throws {FdxValidationError} for a missing handler or TLS material, a malformed fingerprint or `bodyTimeoutMs`.
 */
export function createWebhookServer(options: WebhookServerOptions): Server {
  const issues: FdxIssue[] = [];
  if (typeof options !== "object" || options === null) {
    throw new FdxValidationError([{ path: "", message: "options must be an object with handler and tls" }]);
  }
  const { handler, tls, clientCertificates, bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS } = options;
  if (typeof handler !== "function") issues.push({ path: "handler", message: "must be a function" });
  if (typeof tls !== "object" || tls === null) {
    issues.push({ path: "tls", message: "must be an object with key, cert and ca" });
  } else {
    for (const name of ["key", "cert", "ca"] as const) {
      if (tls[name] === undefined || tls[name] === null || tls[name] === "") {
        issues.push({ path: `tls.${name}`, message: "is required (PEM)" });
      }
    }
  }
  checkInteger(bodyTimeoutMs, 1, "bodyTimeoutMs", issues);
  let pinned: Set<string> | undefined;
  if (clientCertificates !== undefined) {
    const list = clientCertificates?.fingerprints;
    if (!Array.isArray(list) || list.length === 0) {
      issues.push({ path: "clientCertificates.fingerprints", message: "must be a non-empty array of SHA-256 fingerprints" });
    } else {
      pinned = new Set();
      list.forEach((value, index) => {
        const normalized = normalizeFingerprint(value);
        if (normalized === undefined) {
          issues.push({ path: `clientCertificates.fingerprints.${index}`, message: 'must be a SHA-256 fingerprint ("AB:CD:…", 32 bytes in hex)' });
        } else pinned!.add(normalized);
      });
    }
  }
  if (issues.length > 0) throw new FdxValidationError(issues);

  const server = createServer({
    key: tls.key,
    cert: tls.cert,
    ca: tls.ca,
    ...(tls.passphrase === undefined ? {} : { passphrase: tls.passphrase }),
    requestCert: true,
    rejectUnauthorized: true,
    // Node's own limit on receiving a whole request (408 and the connection
    // closed), checked every connectionsCheckingInterval: what bounds a slow body.
    requestTimeout: bodyTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, bodyTimeoutMs),
  });

  const socketPeers = new WeakMap<TLSSocket, WebhookPeerCertificate>();
  // Before node:http's own listener: a refused socket is closed before any
  // request on it is parsed.
  server.prependListener("secureConnection", (socket: TLSSocket) => {
    const refusal = checkPeer(socket, pinned);
    if (typeof refusal === "string") {
      socket.destroy();
      server.emit("tlsClientError", new FdxError(`Client certificate refused: ${refusal}`), socket);
      return;
    }
    // A TLS 1.2 renegotiation could bring another certificate after this check.
    socket.disableRenegotiation();
    socketPeers.set(socket, refusal);
  });

  // `bodyTimeoutMs` also goes to the bridge, for versions of it that time bodies themselves.
  const listenerOptions: NodeListenerOptions & { bodyTimeoutMs?: number } = { bodyTimeoutMs };
  server.on("request", (req, res) => {
    const peer = socketPeers.get(req.socket as TLSSocket);
    // Only a socket that passed the check above has a peer; anything else never reaches the handler.
    if (peer === undefined) {
      req.socket.destroy();
      return;
    }
    toNodeListener((request) => {
      requestPeers.set(request, peer);
      return handler(request);
    }, listenerOptions)(req, res);
  });
  return server;
}

/**
 * The verified client certificate of a request that `createWebhookServer`
 * handed to its handler; `undefined` for any other request (one served by
 * another server, or built in code).
 *
 * @example
 * ```ts
 * onNotification: (n, request) => log.info({ sender: getPeerCertificate(request)?.subject.CN }, "notification")
 * ```
 */
export function getPeerCertificate(request: Request): WebhookPeerCertificate | undefined {
  return requestPeers.get(request);
}

/** The peer's certificate, or why the connection is refused. */
function checkPeer(socket: TLSSocket, pinned: Set<string> | undefined): WebhookPeerCertificate | string {
  // With requestCert and rejectUnauthorized OpenSSL has already refused an
  // unverified or expired chain; checked again so nothing unverified slips through.
  if (!socket.authorized) return (socket.authorizationError as Error | undefined)?.message ?? "not authorized";
  const cert: PeerCertificate | undefined = socket.getPeerCertificate();
  if (!cert?.fingerprint256) return "no certificate";
  if (pinned && !pinned.has(normalizeFingerprint(cert.fingerprint256)!)) return "fingerprint not pinned";
  return {
    subject: { ...cert.subject },
    issuer: { ...cert.issuer },
    fingerprint256: cert.fingerprint256,
    serialNumber: cert.serialNumber,
    validFrom: cert.valid_from,
    validTo: cert.valid_to,
  };
}
