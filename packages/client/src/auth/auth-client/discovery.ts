// Where the IdP's endpoints come from: the options, or its discovery
// document (OpenID Connect Discovery 1.0), checked against the issuer this
// client was set up for before any endpoint in it is used.
import { FdxResponseError, type FdxIssue } from "../../core/error.js";
import { clip } from "../../core/redact.js";
import { httpUrl, isLoopbackHost } from "../../internal/checks.js";
import { isRecord } from "../../internal/is-record.js";
import { request } from "../../internal/request.js";
import type { Transport } from "../../internal/types.js";
import type { AuthClientOptions } from "./types.js";

/** The endpoints in use and the `iss` the IdP's tokens must carry. */
export interface Resolved {
  authorization: string;
  token: string;
  revocation: string | undefined;
  issuer: string;
}

/** The message of an endpoint that {@link isSafeEndpoint} refuses. */
export const UNSAFE_ENDPOINT = "must be an https: URL (http: only to a loopback host)";

/** Whether an endpoint may be used: `https:`, or `http:` to a loopback host. */
export function isSafeEndpoint(value: unknown): boolean {
  const url = httpUrl(value);
  return url !== undefined && (url.protocol === "https:" || isLoopbackHost(url.hostname));
}

/**
 * The endpoints, from the options or from discovery. The discovery document
 * is read when first needed and kept; a failed read is tried again next time.
 */
export function endpointSource(options: AuthClientOptions, transport: Transport, issuerUrl: string): () => Promise<Resolved> {
  let resolved: Promise<Resolved> | undefined;
  return () => {
    if (options.endpoints) {
      const { authorization, token, revocation } = options.endpoints;
      return Promise.resolve({ authorization, token, revocation, issuer: options.expectedIssuer ?? options.issuer });
    }
    resolved ??= discover(transport, issuerUrl, options.issuer, options.expectedIssuer).catch((error: unknown) => {
      resolved = undefined;
      throw error;
    });
    return resolved;
  };
}

async function discover(transport: Transport, issuerUrl: string, configured: string, expectedIssuer: string | undefined): Promise<Resolved> {
  const url = `${issuerUrl.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  // request() sends `authorization` as given: empty, since discovery is public (a bearer-less GET has no other spelling there yet).
  const { status, data } = await request(transport, { method: "GET", url, authorization: "", options: undefined }, "json");
  const issues: FdxIssue[] = [];
  const doc = isRecord(data) ? data : {};
  if (!isRecord(data)) issues.push({ path: "", message: "the discovery document is not a JSON object" });
  const issuer = doc.issuer;
  if (isRecord(data) && (typeof issuer !== "string" || issuer === "")) issues.push({ path: "issuer", message: "must be a non-empty string" });
  else if (isRecord(data)) {
    const mismatch = issuerMismatch(issuer as string, configured, expectedIssuer);
    if (mismatch) issues.push({ path: "issuer", message: mismatch });
  }
  for (const key of ["authorization_endpoint", "token_endpoint"]) {
    if (isRecord(data) && !isSafeEndpoint(doc[key])) issues.push({ path: key, message: UNSAFE_ENDPOINT });
  }
  const revocation = doc.revocation_endpoint;
  if (revocation !== undefined && !isSafeEndpoint(revocation)) issues.push({ path: "revocation_endpoint", message: UNSAFE_ENDPOINT });
  if (issues.length) throw new FdxResponseError(status, issues);
  return {
    authorization: doc.authorization_endpoint as string,
    token: doc.token_endpoint as string,
    revocation: revocation as string | undefined,
    issuer: expectedIssuer ?? (issuer as string),
  };
}

const withoutSlash = (issuer: string) => (issuer.endsWith("/") ? issuer.slice(0, -1) : issuer);

/**
 * Why a discovery document's `issuer` is not the one this client was set up
 * for (RFC 8414 §3.3, the mix-up defence), or undefined when it is. Without
 * `expectedIssuer` it must be the configured issuer, one trailing slash
 * aside; so a provider that names itself by a path (not a URL) is taken only
 * when the app says so in `expectedIssuer`. Issuers are public: both are named.
 */
function issuerMismatch(issuer: string, configured: string, expectedIssuer: string | undefined): string | undefined {
  // Stryker disable next-line ArrayDeclaration: an issuer is public, and a string not in it redacts nothing
  const shown = clip(JSON.stringify(issuer), [], 120);
  if (expectedIssuer !== undefined) return issuer === expectedIssuer ? undefined : `is ${shown}, not the expectedIssuer ${JSON.stringify(expectedIssuer)}`;
  if (withoutSlash(issuer) === withoutSlash(configured)) return undefined;
  return `is ${shown}, not the configured issuer ${JSON.stringify(configured)} (set expectedIssuer when the provider names itself otherwise)`;
}
