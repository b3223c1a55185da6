// The names of the steps each runtime of the matrix reports (no imports, so
// the harness can read them without resolving the packages).

/** The shared scenario (scenario.mjs), in every runtime. */
export const SCENARIO_STEPS = [
  "consent lookup",
  "for await over statement pages",
  "PDF download (arrayBuffer and streamed body)",
  "404 as FdxNotFoundError",
  "webhook handler: POST 200, GET 405",
  "webhook handler: bad bodies rejected (400, 415, 413)",
  "subscription CRUD",
  "validateResponses",
  "test event delivered to the handler",
  "sealed login state: sealAuthorization / openAuthorization round trip; another connection id refused",
];

/**
 * The auth entry's flow (auth.mjs), in every server runtime — Node, Bun,
 * Deno, workerd, edge-runtime — and never in browsers (DESIGN.md §8).
 */
export const AUTH_STEPS = [
  "auth: discovery and authorizationUrl (PKCE S256, state, nonce)",
  "auth: the IdP's sign-in and consent forms over fetch",
  "auth: complete into encryptConnectionStore(memoryConnectionStore())",
  "auth: statements with the user's token (only the granted account)",
  "auth: refresh (rotated; the spent token refused)",
  "auth: revoke (at the IdP; tokens erased)",
];

/** What server runtimes (Node, Bun, Deno) also run (host.mjs): the Node entry and the mock's real server. */
export const HOST_STEPS = ["node entry: toNodeListener on node:http", "node entry: saveStatement", "@fdxkit/mock/server: startMockServer"];

/** Reported by the harness for server runtimes: nothing the packages left open keeps the process alive. */
export const EXIT_STEP = "the process exits on its own when done";
