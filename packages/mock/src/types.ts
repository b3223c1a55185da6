// Public shapes, taken from the types generated from specs/ so the mock and
// the OpenAPI descriptions cannot drift apart.
import type { components as Notifications } from "./generated/notifications.js";
import type { components as Consents } from "./generated/consents.js";
import type { components as Statements } from "./generated/statements.js";

export type Subscription = Notifications["schemas"]["Subscription"];
export type Notification = Notifications["schemas"]["Notification"];
export type NotificationCategory = Notifications["schemas"]["NotificationCategory"];
export type NotificationType = Notifications["schemas"]["NotificationType"];
export type MaintenanceNotification = Notifications["schemas"]["MaintenanceNotification"];
export type ConsentGrant = Consents["schemas"]["ConsentGrant"];
export type Statement = Statements["schemas"]["Statement"];
export type StatementList = Statements["schemas"]["StatementList"];
