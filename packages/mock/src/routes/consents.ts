import { consentNotFound, json } from "../errors.js";
import type { Route, RouteContext } from "../router.js";
import { SEED_DATA } from "../seed.js";

function get({ params }: RouteContext): Response {
  const id = params.consentId as string;
  const consent = SEED_DATA.consents.find((c) => c.id === id);
  return consent ? json(200, consent) : consentNotFound(id);
}

export function consentRoutes(): Route[] {
  // Allowed versions are not shown; v1 is the documented default.
  return [{ pattern: ["consents", ":version", ":consentId"], versions: ["v1"], handlers: { GET: get } }];
}
