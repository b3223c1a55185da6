// Public shapes, taken from the types generated from specs/ so the mock and
// the OpenAPI descriptions cannot drift apart.
import type { components as Notifications } from "./generated/notifications.js";
import type { components as Consents } from "./generated/consents.js";
import type { components as Statements } from "./generated/statements.js";

/** A notification subscription, as the service stores and returns it. */
export type Subscription = Notifications["schemas"]["Subscription"];
/** A webhook notification (maintenance or consent event) as the sandbox posts it. */
export type Notification = Notifications["schemas"]["Notification"];
/** `"MAINTENANCE"` or `"CONSENT"`. */
export type NotificationCategory = Notifications["schemas"]["NotificationCategory"];
/** The event type within a category, e.g. `"PLANNED_OUTAGE"`, `"CONSENT_REVOKED"`. */
export type NotificationType = Notifications["schemas"]["NotificationType"];
/** The maintenance notice a maintenance notification points to. */
export type MaintenanceNotification = Notifications["schemas"]["MaintenanceNotification"];
/** The consent grant a consent notification points to. */
export type ConsentGrant = Consents["schemas"]["ConsentGrant"];
/** One statement of an account, with its download link. */
export type Statement = Statements["schemas"]["Statement"];
/** One page of statements with its `links`. */
export type StatementList = Statements["schemas"]["StatementList"];
