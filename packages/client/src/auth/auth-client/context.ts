// What every step of the authorization-code client shares: the client's
// identity, where the IdP is, and one form POST to its token or revocation
// endpoint with the client's authentication.
import { secretForms } from "../../core/redact.js";
import type { Transport } from "../../internal/types.js";
import { clientAuth, postForm, toAuthError, tokenTransport } from "../token-endpoint.js";
import { endpointSource, type Resolved } from "./discovery.js";
import type { AuthSettings, TokenEndpointAuth } from "./options.js";
import type { AuthClientOptions, TokenCallOptions } from "./types.js";

/** One client's identity and its way to the IdP. */
export interface AuthContext {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  authMethod: TokenEndpointAuth;
  /** The client's Basic credentials. */
  basic: string;
  /** Every form of the client's secret, redacted from every error. */
  clientSecrets: string[];
  transport: Transport;
  /** The IdP's endpoints and issuer (read once from discovery, unless given). */
  endpoints(): Promise<Resolved>;
}

/** The context of checked options. */
export function createAuthContext(options: AuthClientOptions, settings: AuthSettings): AuthContext {
  const { clientId, clientSecret, redirectUri } = options;
  const { basic, secrets: clientSecrets } = clientAuth(clientId, clientSecret);
  const transport = tokenTransport(options.fetch, settings.timeoutMs);
  const endpoints = endpointSource(options, transport, settings.issuerUrl);
  return { clientId, clientSecret, redirectUri, authMethod: settings.authMethod, basic, clientSecrets, transport, endpoints };
}

/** Every form of the call's own secrets and of the client's secret. */
export function callSecrets(ctx: AuthContext, secrets: readonly string[]): string[] {
  return [...secrets.flatMap(secretForms), ...ctx.clientSecrets];
}

/**
 * POSTs `params` with the client's authentication; an OAuth error answer
 * rejects as `FdxAuthError`. `secrets` are the call's own (a code, a refresh
 * token): they never reach an error, like the client's secret.
 */
export async function postToIdp(ctx: AuthContext, url: string, params: URLSearchParams, secrets: string[], call: TokenCallOptions | undefined) {
  if (ctx.authMethod === "client_secret_post") {
    params.set("client_id", ctx.clientId);
    params.set("client_secret", ctx.clientSecret);
  }
  try {
    return await postForm(
      ctx.transport,
      {
        url,
        form: params.toString(),
        authorization: ctx.authMethod === "client_secret_basic" ? `Basic ${ctx.basic}` : "",
        secrets: callSecrets(ctx, secrets),
        options: { timeoutMs: call?.timeoutMs, signal: call?.signal },
      },
      "json",
    );
  } catch (error) {
    throw toAuthError(error);
  }
}
