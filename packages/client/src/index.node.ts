/**
 * `@fdxkit/client` in Node (the package's `node` export condition): the main entry, whose clients send through
 * `node:http`/`node:https` with keep-alive agents unless given a `fetch`.
 *
 * @module @fdxkit/client
 */
import { clientWith, type FdxClient } from "./client.js";
import { FdxValidationError, type FdxIssue } from "./core/error.js";
import type { ClientOptions } from "./core/options.js";
import { sendNodeTransport } from "./node/transport.js";

export * from "./index.js";

/**
 * Creates a client. Throws `FdxValidationError` for unusable options (a relative `baseUrl`, a missing token); makes no
 * request. In Node, requests go through `node:http`/`node:https` (keep-alive agents; `agent` to use your own) unless
 * `fetch` is given: `fetch: globalThis.fetch` uses fetch.
 *
 * @example
 * const client = createClient({ baseUrl: "https://api.example.com", token: process.env.FDX_TOKEN! });
 * const subscription = await client.subscriptions.create({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://me.example/hooks" });
 */
export function createClient(options: ClientOptions): FdxClient {
  const agent = (options as Partial<ClientOptions> | undefined)?.agent;
  // Checked here, by the one entry that uses it (no browser bundle carries the check); what each agent is,
  // Node checks when it sends (an FdxConnectionError naming the option).
  if (agent === undefined || (typeof agent === "object" && agent !== null)) return clientWith(options, sendNodeTransport);
  const issues: FdxIssue[] = [];
  try {
    clientWith(options, sendNodeTransport);
  } catch (error) {
    if (!(error instanceof FdxValidationError)) throw error;
    issues.push(...error.issues);
  }
  throw new FdxValidationError([...issues, { path: "agent", message: "must be an object { http?, https? }" }]);
}
