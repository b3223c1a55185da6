// `@fdxkit/mock/server`: the HTTP server and the app without msw, for
// projects that do not install the optional msw peer dependency.
export { startMockServer } from "./server.js";
export type { MockServer, MockServerOptions } from "./server.js";
export {
  createMockApp,
  DEFAULT_BASE_URL,
  DEFAULT_DOCUMENTS_URL,
  DEFAULT_IDP_URL,
  DEFAULT_REDIRECT_URIS,
  SANDBOX_CLIENT_ID,
  SANDBOX_CLIENT_SECRET,
} from "./app.js";
export type { MockApp, MockAppOptions, MockControls, MockOptions } from "./app.js";
export type { DeliveryAttempt, DeliveryOptions, WebhookDelivery, WebhookTlsOptions } from "./delivery.js";
export type { RateLimitOptions } from "./rate-limit.js";
export type { ProviderRateLimits, ProviderRateLimitStats } from "./provider-rate-limit.js";
export type { FaultOptions } from "./faults.js";
export { SANDBOX_TOKEN, SEED_ANCHOR } from "./seed.js";
export type { MockSeed, SandboxUser } from "./seed.js";
export type { AuthorizeOptions, AuthStats } from "./idp/idp.js";
export { DEFAULT_LIMIT, MAX_LIMIT } from "./routes/statements.js";
export type * from "./types.js";
