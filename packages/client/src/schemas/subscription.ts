import * as z from "zod/mini";
import { openEnum } from "../internal/open-enum.js";
import type { NOTIFICATION_CATEGORIES, NOTIFICATION_TYPES } from "./enums.js";
import { optionalStrings } from "./optional-strings.js";

// Tolerant of a newer server (unknown fields kept, unknown enum values accepted), strict about what the service requires.

/** A notification subscription as returned by create, get, update and list. */
export const subscriptionSchema = z.looseObject({
  subscriptionId: z.string(),
  category: openEnum<typeof NOTIFICATION_CATEGORIES>(),
  type: openEnum<typeof NOTIFICATION_TYPES>(),
  callbackUrl: z.string(),
  ...optionalStrings("effectiveDate", "callbackEmail"),
});

/** The list response once normalised to an array. */
export const subscriptionArraySchema = z.array(subscriptionSchema);
