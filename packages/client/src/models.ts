// Public data types, taken from the types generated from specs/ so they never drift from the service description.
import type { components as C } from "./generated/consents.js";
import type { components as N } from "./generated/notifications.js";
import type { components as S } from "./generated/statements.js";

/** A notification subscription as the service returns it. */
export type Subscription = N["schemas"]["Subscription"];
/** Body of `subscriptions.create`. */
export type SubscriptionInput = N["schemas"]["SubscriptionRequest"];
/** Body of `subscriptions.update`: at least one field. */
export type SubscriptionUpdate = N["schemas"]["SubscriptionUpdate"];
export type NotificationCategory = N["schemas"]["NotificationCategory"];
export type NotificationType = N["schemas"]["NotificationType"];
/** Details of a maintenance notice (`maintenance.get`). */
export type MaintenanceNotification = N["schemas"]["MaintenanceNotification"];
/** An end-user consent grant (`consents.get`). */
export type ConsentGrant = C["schemas"]["ConsentGrant"];
export type ConsentStatus = NonNullable<ConsentGrant["status"]>;
/** A statement of an account, with its download link(s). */
export type Statement = S["schemas"]["Statement"];
/** One page of the statement list as the service sends it. */
export type StatementList = S["schemas"]["StatementList"];
export type Notification = N["schemas"]["Notification"];
