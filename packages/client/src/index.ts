/**
 * `@fdxkit/client`: `createClient` and its typed methods for FDX event notifications, consents and statements, the
 * `FdxError` classes, and the `clientCredentials` token function. Web APIs only: runs in Node >= 20 and in browsers.
 *
 * @module @fdxkit/client
 */
export { createClient, type FdxClient } from "./client.js";
export type {
  ActorType,
  ApiVersions,
  ClientHooks,
  ClientOptions,
  FetchLike,
  HookEventBase,
  NodeAgents,
  RequestHookEvent,
  RequestOptions,
  ResponseHookEvent,
  RetryHookEvent,
  TokenContext,
  TokenProvider,
} from "./core/options.js";
export {
  FdxError,
  FdxApiError,
  FdxBadRequestError,
  FdxUnauthorizedError,
  FdxNotFoundError,
  FdxMethodNotAllowedError,
  FdxRateLimitError,
  FdxInternalServerError,
  FdxNotImplementedError,
  FdxMaintenanceError,
  FdxConnectionError,
  FdxTimeoutError,
  FdxAbortError,
  FdxValidationError,
  FdxResponseError,
  FdxLinkError,
  FdxWebhookError,
  FdxErrorCode,
  type FdxApiErrorInit,
  type FdxFailureCode,
  type FdxIssue,
} from "./core/error.js";
export type * from "./models.js";
export type { SubscriptionsResource } from "./resources/subscriptions.js";
export type { MaintenanceResource } from "./resources/maintenance.js";
export type { ConsentsResource } from "./resources/consents.js";
export { clientCredentials, type ClientCredentialsOptions } from "./auth/client-credentials.js";
export type { StatementsResource } from "./resources/statements.js";
export type { StatementPaginator, StatementListOptions } from "./pagination/paginator.js";
export type { StatementPage } from "./pagination/page.js";
export type { StatementListParams } from "./pagination/params.js";
export type { StatementDocument } from "./download/document.js";
export type { DownloadOptions } from "./download/download.js";
export type { DownloadTarget, StatementIds } from "./download/target.js";
export { memoryRateBudget } from "./rate-budget/memory.js";
export type { RateBudget, RateLimit, RateLimits } from "./rate-budget/types.js";
