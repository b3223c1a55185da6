import * as z from "zod/mini";
import { optionalStrings } from "./optional-strings.js";

/** Maintenance notification details. The service marks no field required. */
export const maintenanceNotificationSchema = z.looseObject({
  ...optionalStrings("id", "category", "type", "institutionId", "startTime", "endTime", "title", "message"),
  impactedService: z.optional(z.array(z.string())),
});
