/**
 * `@fdxkit/client/node`: helpers that need Node built-ins — `toNodeListener`
 * to serve a webhook handler from `node:http` or Express,
 * `createWebhookServer` to receive webhooks over mutual TLS, and
 * `saveStatement` to stream a downloaded statement to a file.
 *
 * @module @fdxkit/client/node
 */
export { toNodeListener, type FetchHandler, type NodeListener, type NodeListenerOptions } from "./listener.js";
export { saveStatement, type SavedStatement } from "./save-statement.js";
export {
  createWebhookServer,
  getPeerCertificate,
  type WebhookPeerCertificate,
  type WebhookServerOptions,
  type WebhookServerTls,
} from "./webhook-server.js";
