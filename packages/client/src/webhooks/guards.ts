import type { ConsentNotificationEvent, MaintenanceNotificationEvent, Notification } from "../schemas/notification.js";

// The guards read `notificationPayload.idType`, not `category`: idType says what the id identifies, and the service does
// not say which types belong to which category. A payload without idType matches neither guard. The id must be a
// non-empty string so that it can go straight to `client.maintenance.get` or `client.consents.get`.

function hasPayloadId(notification: Notification, idType: string): boolean {
  const payload = notification.notificationPayload as Notification["notificationPayload"] | undefined;
  return payload?.idType === idType && typeof payload.id === "string" && payload.id !== "";
}

/**
 * True when the payload id is a maintenance notice id (`idType` `"MAINTENANCE"` with a non-empty `id`): read the
 * notice with `client.maintenance.get(notification.notificationPayload.id)`.
 *
 * @example
 * ```ts
 * if (isMaintenanceNotification(notification)) {
 *   const notice = await client.maintenance.get(notification.notificationPayload.id); // id: string here
 *   console.log(notice.title, notice.startTime, notice.endTime);
 * }
 * ```
 */
export function isMaintenanceNotification(notification: Notification): notification is MaintenanceNotificationEvent {
  return hasPayloadId(notification, "MAINTENANCE");
}

/**
 * True when the payload id is a consent id (`idType` `"CONSENT"` with a non-empty `id`): read the grant with
 * `client.consents.get(notification.notificationPayload.id)`.
 *
 * @example
 * ```ts
 * if (isConsentNotification(notification)) {
 *   const consent = await client.consents.get(notification.notificationPayload.id); // id: string here
 *   if (consent.status === "REVOKED") console.log("stop using", consent.resources);
 * }
 * ```
 */
export function isConsentNotification(notification: Notification): notification is ConsentNotificationEvent {
  return hasPayloadId(notification, "CONSENT");
}
