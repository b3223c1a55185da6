/**
 * `@fdxkit/client` in Node (the package's `node` export condition): the
 * main entry, whose clients send through Node's own transport
 * (`node:http`/`node:https` with keep-alive agents) unless given a `fetch`.
 *
 * @module @fdxkit/client
 */
import { createClient as createFetchClient, type FdxClient } from "./client.js";
import type { ClientOptions } from "./core/options.js";
import { useSender } from "./internal/request.js";
import { sendNode } from "./node/transport.js";

export * from "./index.js";

useSender(sendNode);

/**
 * Creates a client. Throws `FdxValidationError` for unusable options (a
 * relative `baseUrl`, a missing token); makes no request. In Node, requests
 * go through `node:http`/`node:https` (keep-alive agents; `agent` to use
 * your own) unless `fetch` is given: `fetch: globalThis.fetch` uses fetch.
 *
 * @example
 * const client = createClient({ baseUrl: "https://api.example.com", token: process.env.FDX_TOKEN! });
 * const subscription = await client.subscriptions.create({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://me.example/hooks" });
 */
// Its own function, not a re-export: a bundler that skips modules whose exports go unused must still run the line above.
export function createClient(options: ClientOptions): FdxClient {
  return createFetchClient(options);
}
