import type { RequestOptions } from "../core/options.js";
import { callBody, type Context } from "../internal/context.js";
import { buildPath } from "../internal/paths.js";
import { checkIds } from "../internal/validation.js";
import type { MaintenanceNotification } from "../models.js";

/** `client.maintenance`: maintenance notification details. */
export interface MaintenanceResource {
  /** Details of the maintenance notice a webhook's `notificationPayload.id` points to. */
  get(notificationPayloadId: string, options?: RequestOptions): Promise<MaintenanceNotification>;
}

export function maintenanceResource(ctx: Context): MaintenanceResource {
  return {
    async get(notificationPayloadId, options) {
      checkIds({ notificationPayloadId });
      const path = buildPath("/notifications/{version}/maintenance/{notificationPayloadId}", { version: ctx.versions.notifications, notificationPayloadId });
      return await callBody(ctx, { method: "GET", url: ctx.baseUrl + path, options }, "maintenance");
    },
  };
}
