import { isRecord } from "../internal/is-record.js";
import type { Notification } from "../schemas/notification.js";

// The checks of `notificationSchema` written out by hand for the webhook hot path, where zod cost Bun and Deno more than
// serving the delivery. The schema stays the definition: this only recognises values that certainly pass it, and zod
// names the issues of the rest. Change both together; the tests compare them over generated values.

const optionalString = (value: unknown) => value === undefined || typeof value === "string";

function isLink(value: unknown): boolean {
  if (!isRecord(value) || typeof value.href !== "string" || !optionalString(value.action) || !optionalString(value.rel)) return false;
  const types = value.types;
  if (types === undefined) return true;
  if (!Array.isArray(types)) return false;
  for (let i = 0; i < types.length; i++) if (typeof types[i] !== "string") return false;
  return true;
}

const isOptionalLink = (value: unknown) => value === undefined || isLink(value);

const isOptionalParty = (value: unknown) =>
  value === undefined ||
  (isRecord(value) && optionalString(value.name) && optionalString(value.type) && optionalString(value.registry) && optionalString(value.registeredEntityId));

/** One `customFields` member as the schema takes it. */
export const isCustomField = (value: unknown) => isRecord(value) && optionalString(value.name) && optionalString(value.value);

function isOptionalCustomFields(value: unknown): boolean {
  if (value === undefined) return true;
  if (!Array.isArray(value)) return isCustomField(value); // one object, FDX 5.2's shape
  for (let i = 0; i < value.length; i++) if (!isCustomField(value[i])) return false;
  return true;
}

/**
 * `value` as a {@link Notification} when it passes `notificationSchema`, else `undefined`. `value` must be a fresh
 * copy (readJson's): a single `customFields` object is wrapped in an array in place, as the schema's transform does.
 */
export function asNotification(value: unknown): Notification | undefined {
  if (!isRecord(value)) return undefined;
  const payload = value.notificationPayload;
  if (
    typeof value.category !== "string" ||
    typeof value.type !== "string" ||
    !isRecord(payload) ||
    !optionalString(value.notificationId) ||
    !optionalString(value.sentOn) ||
    !isOptionalParty(value.subscriber) ||
    !isOptionalParty(value.publisher) ||
    !isOptionalLink(value.url) ||
    !optionalString(payload.id) ||
    !optionalString(payload.idType) ||
    !isOptionalCustomFields(payload.customFields) ||
    !isOptionalLink(payload.url)
  ) {
    return undefined;
  }
  if (isRecord(payload.customFields)) payload.customFields = [payload.customFields];
  return value as Notification;
}
