import * as z from "zod/mini";

/** Maintenance notification details. The service marks no field required. */
export const maintenanceNotificationSchema = z.looseObject({
  id: z.optional(z.string()),
  category: z.optional(z.string()),
  type: z.optional(z.string()),
  institutionId: z.optional(z.string()),
  startTime: z.optional(z.string()),
  endTime: z.optional(z.string()),
  title: z.optional(z.string()),
  message: z.optional(z.string()),
  impactedService: z.optional(z.array(z.string())),
});
