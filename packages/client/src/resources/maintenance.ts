import type { RequestOptions } from "../core/options.js";
import { getById, type Context } from "../internal/context.js";
import type { MaintenanceNotification } from "../models.js";

/** `client.maintenance`: maintenance notification details. */
export interface MaintenanceResource {
  /** Details of the maintenance notice a webhook's `notificationPayload.id` points to. */
  get(notificationPayloadId: string, options?: RequestOptions): Promise<MaintenanceNotification>;
}

export function maintenanceResource(ctx: Context): MaintenanceResource {
  return {
    get: (notificationPayloadId, options) =>
      getById(ctx, "/notifications/{version}/maintenance/{notificationPayloadId}", "notifications", { notificationPayloadId }, "maintenance", options),
  };
}
