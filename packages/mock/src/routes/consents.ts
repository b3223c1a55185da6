import { json, notFound } from "../errors.js";
import type { Route, RouteContext } from "../router.js";
import { SEED_DATA } from "../seed.js";
import type { AppState } from "../state.js";

export function consentRoutes(state: AppState): Route[] {
  function get({ params }: RouteContext): Response {
    const id = params.consentId as string;
    // The identity provider's grants, and seeded ones it changed, before the seed.
    const consent = state.consents.get(id) ?? SEED_DATA.consents.find((c) => c.id === id);
    // The service's own not-found body (as for maintenance details): code and message only.
    return consent ? json(200, consent) : notFound();
  }
  // Allowed versions are not shown; v1 is the documented default.
  return [{ pattern: ["consents", ":version", ":consentId"], versions: ["v1"], handlers: { GET: get } }];
}
