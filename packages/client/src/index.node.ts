/**
 * `@fdxkit/client` in Node (the package's `node` export condition): the main entry, whose clients send through
 * `node:http`/`node:https` with keep-alive agents unless given a `fetch`.
 *
 * @module @fdxkit/client
 */
import { createClient as createFetchClient, type FdxClient } from "./client.js";
import { FdxValidationError, type FdxIssue } from "./core/error.js";
import type { ClientOptions } from "./core/options.js";
import { useSender } from "./internal/request.js";
import { sendNodeOrFetch } from "./node/transport.js";

export * from "./index.js";

useSender(sendNodeOrFetch);

/**
 * Creates a client. Throws `FdxValidationError` for unusable options (a relative `baseUrl`, a missing token); makes no
 * request. In Node, requests go through `node:http`/`node:https` (keep-alive agents; `agent` to use your own) unless
 * `fetch` is given: `fetch: globalThis.fetch` uses fetch.
 *
 * @example
 * const client = createClient({ baseUrl: "https://api.example.com", token: process.env.FDX_TOKEN! });
 * const subscription = await client.subscriptions.create({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://me.example/hooks" });
 */
// Its own function, not a re-export: a bundler that skips modules whose exports go unused must still run the line above.
export function createClient(options: ClientOptions): FdxClient {
  const agent = (options as Partial<ClientOptions> | undefined)?.agent;
  // Checked here, in the one entry that uses it, so no browser bundle carries the check; Node checks each agent when it sends.
  if (agent === undefined || (typeof agent === "object" && agent !== null)) return createFetchClient(options);
  const issues: FdxIssue[] = [];
  try {
    createFetchClient(options);
  } catch (error) {
    if (!(error instanceof FdxValidationError)) throw error;
    issues.push(...error.issues);
  }
  throw new FdxValidationError([...issues, { path: "agent", message: "must be an object { http?, https? }" }]);
}
