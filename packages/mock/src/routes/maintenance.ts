import { json, maintenanceInvalidInput, maintenanceNotFound } from "../errors.js";
import type { Route, RouteContext } from "../router.js";
import { SEED_DATA } from "../seed.js";

const MAX_ID_LENGTH = 256;

function get({ params }: RouteContext): Response {
  const id = params.notificationPayloadId as string;
  if (id.length > MAX_ID_LENGTH || /\s/.test(id)) return maintenanceInvalidInput();
  const notice = SEED_DATA.maintenance.find((m) => m.id === id);
  return notice ? json(200, notice) : maintenanceNotFound();
}

export function maintenanceRoutes(): Route[] {
  return [
    {
      pattern: ["notifications", ":version", "maintenance", ":notificationPayloadId"],
      versions: ["v1"],
      handlers: { GET: get },
      plainTextMethodNotAllowed: true,
    },
  ];
}
