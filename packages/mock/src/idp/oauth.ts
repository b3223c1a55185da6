// What the token and revocation endpoints share: OAuth error answers and
// client authentication.

import { json } from "../errors.js";

export function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return json(status, { error, error_description: description }, { "Cache-Control": "no-store", Pragma: "no-cache", ...headers });
}

const invalidClient = () => oauthError(401, "invalid_client", "Client authentication failed", { "WWW-Authenticate": 'Basic realm="fdxkit-sandbox"' });

/** RFC 6749 §2.3.1: the Basic credentials' parts are form-urlencoded first. */
function formDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return undefined;
  }
}

/** The registered client. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** The client's id when its credentials are right (HTTP Basic or client_secret_post), else the 401/400 to answer. */
export function authenticateClient(request: Request, form: URLSearchParams, client: ClientCredentials): string | Response {
  const header = request.headers.get("Authorization");
  const postedSecret = form.get("client_secret");
  let clientId: string | undefined;
  let secret: string | undefined;
  if (header !== null) {
    if (postedSecret !== null) return oauthError(400, "invalid_request", "Use one client authentication method, not two");
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    if (!match) return invalidClient();
    let decoded: string;
    try {
      decoded = atob(match[1] as string);
    } catch {
      return invalidClient();
    }
    const colon = decoded.indexOf(":");
    if (colon < 0) return invalidClient();
    clientId = formDecode(decoded.slice(0, colon));
    secret = formDecode(decoded.slice(colon + 1));
    const posted = form.get("client_id");
    if (posted !== null && posted !== clientId) return invalidClient();
  } else {
    clientId = form.get("client_id") ?? undefined;
    secret = postedSecret ?? undefined;
  }
  if (clientId !== client.clientId || secret !== client.clientSecret) return invalidClient();
  return clientId;
}
