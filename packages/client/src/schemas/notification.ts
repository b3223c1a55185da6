import * as z from "zod/mini";

// The webhook notification arrives unsigned, so its structure is checked strictly: required members present, every
// known member of the right JSON type. Receivers outlive this SDK version, so enum members accept any string (an older
// receiver must still answer 200 to a newer server), unknown members are kept, and formats (`sentOn`, `href`) are not
// enforced. Tests hold these schemas and types equal to those generated from specs/notifications.yaml, enums widened.
import { openEnum, type OpenEnum } from "../internal/open-enum.js";
import type { NOTIFICATION_CATEGORIES, NOTIFICATION_TYPES } from "./enums.js";
/** Known payload id types: what `notificationPayload.id` identifies. */
export const NOTIFICATION_ID_TYPES = ["MAINTENANCE", "CONSENT"] as const;
/** Known link actions. */
export const LINK_ACTIONS = ["GET", "POST", "PATCH", "DELETE", "PUT"] as const;

/** Message of a type mismatch, or "is required" when the member is absent. */
function expected(what: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : `must be ${what}`);
}

const str = () => z.string({ error: expected("a string") });

/** A link (hateoasLink). `href` is required. */
export const hateoasLinkSchema = z.looseObject(
  {
    href: str(),
    action: z.optional(openEnum<typeof LINK_ACTIONS>(str())),
    rel: z.optional(str()),
    types: z.optional(z.array(str(), { error: expected("an array of strings") })),
  },
  { error: expected("an object") },
);

/** Subscriber or publisher of a notification. */
export const partySchema = z.looseObject(
  {
    name: z.optional(str()),
    type: z.optional(str()),
    registry: z.optional(str()),
    registeredEntityId: z.optional(str()),
  },
  { error: expected("an object") },
);

/** A name/value attribute of a payload. */
export const customFieldSchema = z.looseObject(
  {
    name: z.optional(str()),
    value: z.optional(str()),
  },
  { error: expected("an object") },
);

/** An array of name/value objects; FDX 5.2's single object becomes a one-element array, so receivers see one shape. */
const customFieldsSchema = z.pipe(
  z.transform((value: unknown) => (typeof value === "object" && value !== null && !Array.isArray(value) ? [value] : value)),
  z.array(customFieldSchema, { error: expected("an array of name/value objects, or one such object") }),
);

/** The payload of a notification. */
export const notificationPayloadSchema = z.looseObject(
  {
    id: z.optional(str()),
    idType: z.optional(openEnum<typeof NOTIFICATION_ID_TYPES>(str())),
    customFields: z.optional(customFieldsSchema),
    url: z.optional(hateoasLinkSchema),
  },
  { error: expected("an object") },
);

/** A notification: a webhook body, or the sandbox test event response. */
export const notificationSchema = z.looseObject(
  {
    notificationId: z.optional(str()),
    sentOn: z.optional(str()),
    subscriber: z.optional(partySchema),
    publisher: z.optional(partySchema),
    category: openEnum<typeof NOTIFICATION_CATEGORIES>(str()),
    type: openEnum<typeof NOTIFICATION_TYPES>(str()),
    notificationPayload: notificationPayloadSchema,
    url: z.optional(hateoasLinkSchema),
  },
  { error: expected("an object") },
);

/** A link (hateoasLink). Unknown members are kept at run time. */
export type HateoasLink = {
  /** URL to call for the action (a URI reference). */
  href: string;
  action?: OpenEnum<(typeof LINK_ACTIONS)[number]>;
  /** Relation per RFC 5988. */
  rel?: string;
  /** Media types offered for download (statement links). */
  types?: string[];
};

/** Subscriber or publisher of a notification. Unknown members are kept at run time. */
export type Party = {
  name?: string;
  type?: string;
  registry?: string;
  registeredEntityId?: string;
};

/** Name/value attribute of a notification payload. */
export type CustomField = {
  name?: string;
  value?: string;
};

/** Known values of `notificationPayload.idType`. */
export type NotificationIdType = (typeof NOTIFICATION_ID_TYPES)[number];

/** Payload of a notification. Unknown members are kept at run time. */
export type NotificationPayload = {
  /**
   * Id of the originating entity: for `idType` `"MAINTENANCE"` the `notificationPayloadId` of
   * `client.maintenance.get`, for `"CONSENT"` the consent id of `client.consents.get`.
   */
  id?: string;
  /** What `id` identifies. */
  idType?: OpenEnum<NotificationIdType>;
  customFields?: CustomField[];
  url?: HateoasLink;
};

/**
 * A notification: the body of a webhook delivery or of the sandbox test event response. `category`, `type` and
 * `notificationPayload` are always present; enum members may hold values newer than this SDK. Unknown members are
 * kept at run time (read them with a cast).
 */
export type Notification = {
  notificationId?: string;
  /** When the notification was sent (date-time, as the server wrote it). */
  sentOn?: string;
  subscriber?: Party;
  publisher?: Party;
  category: OpenEnum<(typeof NOTIFICATION_CATEGORIES)[number]>;
  /** Read it to decide which payload to expect. */
  type: OpenEnum<(typeof NOTIFICATION_TYPES)[number]>;
  notificationPayload: NotificationPayload;
  url?: HateoasLink;
};

/** A notification whose payload id is a maintenance notice id: pass `notificationPayload.id` to `client.maintenance.get`. */
export type MaintenanceNotificationEvent = Notification & {
  notificationPayload: NotificationPayload & { idType: "MAINTENANCE"; id: string };
};

/** A notification whose payload id is a consent id: pass `notificationPayload.id` to `client.consents.get`. */
export type ConsentNotificationEvent = Notification & {
  notificationPayload: NotificationPayload & { idType: "CONSENT"; id: string };
};
