// The defaults a mock starts with when its options name nothing else: the
// sandbox's origins and its identity provider's one registered client.

/** Default `baseUrl` of the msw handlers and of a bare `createMockApp()`. */
export const DEFAULT_BASE_URL = "https://sandbox.fdxkit.test";
/** Default `documentsUrl` of the msw handlers and of `createMockApp()` with `documents: "redirect"`. */
export const DEFAULT_DOCUMENTS_URL = "https://documents.sandbox.fdxkit.test";
/** Default `idpUrl` (the identity provider's issuer) of the msw handlers and of `createMockApp()`. */
export const DEFAULT_IDP_URL = "https://idp.sandbox.fdxkit.test";
/** Default `clientId` of the identity provider's one registered client. */
export const SANDBOX_CLIENT_ID = "fdxkit-sandbox-app";
/** Default `clientSecret` of that client (a sandbox secret: the CLI prints it). */
export const SANDBOX_CLIENT_SECRET = "fdxkit-sandbox-secret";

/** Default `redirectUris`: loopback callbacks, matched on any port (RFC 8252). */
export const DEFAULT_REDIRECT_URIS: readonly string[] = ["http://127.0.0.1/callback", "http://localhost/callback"];
