import type { RequestOptions } from "../core/options.js";
import { requestJson, type Pipeline } from "../internal/pipeline.js";
import { checkIds } from "../internal/validation.js";
import type { MaintenanceNotification } from "../models.js";


/** `client.maintenance`: maintenance notification details. */
export interface MaintenanceResource {
  /** Details of the maintenance notice a webhook's `notificationPayload.id` points to. */
  get(notificationPayloadId: string, options?: RequestOptions): Promise<MaintenanceNotification>;
}

export function maintenanceResource(p: Pipeline): MaintenanceResource {
  return {
    async get(notificationPayloadId, options) {
      checkIds({ notificationPayloadId });
      const path = { version: p.versions.notifications as "v1", notificationPayloadId };
      return await requestJson(
        p,
        options,
        (fetch) => p.notifications.GET("/notifications/{version}/maintenance/{notificationPayloadId}", { params: { path }, fetch }),
        "maintenance",
      );
    },
  };
}
