// The options of the authorization-code client, checked all at once so that
// a misconfigured app learns every mistake from one FdxValidationError.
import { FdxValidationError, type FdxIssue } from "../../core/error.js";
import { checkInteger } from "../../internal/checks.js";
import { isSafeEndpoint, UNSAFE_ENDPOINT } from "./discovery.js";
import type { AuthClientOptions, AuthEndpoints } from "./types.js";

/** How the client authenticates at the token and revocation endpoints. */
export type TokenEndpointAuth = NonNullable<AuthClientOptions["tokenEndpointAuth"]>;

/** The options with their defaults applied. */
export interface AuthSettings {
  /** The issuer as a normalized URL, or "" when it is none (allowed with explicit endpoints). */
  issuerUrl: string;
  timeoutMs: number;
  authMethod: TokenEndpointAuth;
}

/** The settings of valid options; any wrong option throws `FdxValidationError` naming each one. */
export function readAuthOptions(options: AuthClientOptions): AuthSettings {
  const issues: FdxIssue[] = [];
  for (const key of ["clientId", "clientSecret"] as const) {
    if (typeof options[key] !== "string" || options[key] === "") issues.push({ path: key, message: "must be a non-empty string" });
  }
  // Stryker disable next-line StringLiteral: kept only when the issuer is not a URL, and no text that is not a URL passes the endpoint check
  let issuerUrl = "";
  try {
    issuerUrl = new URL(options.issuer).href;
  } catch {
    // reported below
  }
  if (!options.endpoints && !isSafeEndpoint(issuerUrl)) issues.push({ path: "issuer", message: UNSAFE_ENDPOINT });
  try {
    new URL(options.redirectUri);
  } catch {
    issues.push({ path: "redirectUri", message: "must be an absolute URL" });
  }
  const timeoutMs = options.timeoutMs ?? 30_000;
  checkInteger(timeoutMs, 1, "timeoutMs", issues);
  const authMethod = options.tokenEndpointAuth ?? "client_secret_basic";
  if (authMethod !== "client_secret_basic" && authMethod !== "client_secret_post") {
    issues.push({ path: "tokenEndpointAuth", message: 'must be "client_secret_basic" or "client_secret_post"' });
  }
  if (options.expectedIssuer !== undefined && (typeof options.expectedIssuer !== "string" || options.expectedIssuer === "")) {
    issues.push({ path: "expectedIssuer", message: "must be a non-empty string" });
  }
  if (options.endpoints) checkEndpoints(options.endpoints, options, issues);
  if (issues.length) throw new FdxValidationError(issues);
  return { issuerUrl, timeoutMs, authMethod };
}

// Explicit endpoints skip discovery, so the issuer that id tokens must carry
// has to come from the options instead.
function checkEndpoints(endpoints: AuthEndpoints, options: AuthClientOptions, issues: FdxIssue[]): void {
  const { authorization, token, revocation } = endpoints;
  const bad = (path: string) => issues.push({ path: `endpoints.${path}`, message: UNSAFE_ENDPOINT });
  if (!isSafeEndpoint(authorization)) bad("authorization");
  if (!isSafeEndpoint(token)) bad("token");
  if (revocation !== undefined && !isSafeEndpoint(revocation)) bad("revocation");
  if (options.expectedIssuer === undefined && (typeof options.issuer !== "string" || options.issuer === "")) {
    issues.push({ path: "issuer", message: "must be a non-empty string" });
  }
}
