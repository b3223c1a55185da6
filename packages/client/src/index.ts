export { createClient, type FdxClient } from "./core/client.js";
export type { ApiVersions, ClientOptions, FetchLike, RequestOptions, TokenProvider } from "./core/options.js";
export * from "./core/errors/index.js";
export type * from "./models.js";
export type { SubscriptionsResource } from "./resources/subscriptions.js";
export type { MaintenanceResource } from "./resources/maintenance.js";
export type { ConsentsResource } from "./resources/consents.js";
export { clientCredentials, type ClientCredentialsOptions } from "./auth/client-credentials.js";
