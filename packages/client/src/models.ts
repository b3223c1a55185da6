// Public data types, taken from the types generated from specs/ so they never drift from the service description.
// Response types open their enums (`OpenEnums`): a value a newer server adds is a string the SDK passes through,
// not a type lie. Request types keep the closed enums the service accepts.
import type { components as C } from "./generated/consents.js";
import type { components as N } from "./generated/notifications.js";
import type { components as S } from "./generated/statements.js";
import type { OpenEnum, OpenEnums } from "./internal/open-enum.js";

export type { OpenEnum };
/** A notification subscription as the service returns it. */
export type Subscription = OpenEnums<N["schemas"]["Subscription"]>;
/** Body of `subscriptions.create`. */
export type SubscriptionInput = N["schemas"]["SubscriptionRequest"];
/** Body of `subscriptions.update`: at least one field. */
export type SubscriptionUpdate = N["schemas"]["SubscriptionUpdate"];
/** Notification categories the service documents. */
export type NotificationCategory = N["schemas"]["NotificationCategory"];
/** Notification types the service documents. */
export type NotificationType = N["schemas"]["NotificationType"];
/** Details of a maintenance notice (`maintenance.get`). */
export type MaintenanceNotification = OpenEnums<N["schemas"]["MaintenanceNotification"]>;
/** An end-user consent grant (`consents.get`). */
export type ConsentGrant = OpenEnums<C["schemas"]["ConsentGrant"]>;
/** Consent statuses: `ACTIVE`, `EXPIRED`, `REVOKED`, or one a newer server adds. */
export type ConsentStatus = NonNullable<ConsentGrant["status"]>;
/** A link (hateoasLink) as the service returns it. */
export type HateoasLink = OpenEnums<S["schemas"]["HateoasLink"]>;
/** A statement of an account, with its download link(s). */
export type Statement = OpenEnums<S["schemas"]["Statement"]>;
/** One page of the statement list as the service sends it. */
export type StatementList = OpenEnums<S["schemas"]["StatementList"]>;
// One Notification type for webhooks and the test event: the webhook schema's.
export type { Notification } from "./schemas/notification.js";
