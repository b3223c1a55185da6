import * as z from "zod/mini";
import { openEnum } from "../internal/open-enum.js";

// Response schemas: tolerant of a newer server (unknown fields kept, unknown
// enum values accepted), strict about what the service description requires.

export const NOTIFICATION_CATEGORIES = ["MAINTENANCE", "CONSENT"] as const;
export const NOTIFICATION_TYPES = ["SERVICE", "PLANNED_OUTAGE", "CONSENT_UPDATED", "CONSENT_REVOKED"] as const;

/** A notification subscription as returned by create, get, update and list (§2.1). */
export const subscriptionSchema = z.looseObject({
  subscriptionId: z.string(),
  category: openEnum(NOTIFICATION_CATEGORIES),
  type: openEnum(NOTIFICATION_TYPES),
  callbackUrl: z.string(),
  effectiveDate: z.optional(z.string()),
  callbackEmail: z.optional(z.string()),
});

/** The list response once normalised to an array. */
export const subscriptionArraySchema = z.array(subscriptionSchema);
