/**
 * `@fdxkit/client/webhooks`: receive maintenance and consent notifications.
 *
 * Web APIs only (no Node built-ins), so it runs as-is in browsers, Next.js route handlers, Hono, Bun, Deno and Workers.
 * Webhooks carry no signature: authenticate the sender by mutual TLS (`createWebhookServer` in `@fdxkit/client/node`,
 * or {@link verifyForwardedClientCertificate} behind a TLS-terminating proxy), or treat each one as a hint and read
 * the details through the API.
 *
 * @module @fdxkit/client/webhooks
 */
export { parseNotification } from "./parse.js";
export { isConsentNotification, isMaintenanceNotification } from "./guards.js";
export { createWebhookHandler, type WebhookHandler, type WebhookHandlerOptions } from "./handler.js";
export { memoryDedupe, type DedupeStore, type MemoryDedupeOptions } from "./dedupe.js";
export {
  verifyForwardedClientCertificate,
  type ForwardedCertificateFormat,
  type ForwardedCertificateRefusal,
  type ForwardedCertificateResult,
  type ForwardedClientCertificateOptions,
} from "./forwarded-certificate.js";
export type {
  ConsentNotificationEvent,
  CustomField,
  HateoasLink,
  MaintenanceNotificationEvent,
  Notification,
  NotificationIdType,
  NotificationPayload,
  Party,
} from "../schemas/notification.js";
export type { OpenEnum } from "../internal/open-enum.js";
// FdxValidationError: what createWebhookHandler throws for bad options.
export { FdxError, FdxValidationError, FdxWebhookError } from "../core/error.js";
export type { FdxIssue } from "../core/error.js";
