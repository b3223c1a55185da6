// The API's routes as one table: each area is a path prefix and the routes
// under it, so which group of routes answers which path reads at once.
import { matchRoute, splitPath, type Route, type RouteMatch } from "./router.js";
import { consentRoutes } from "./routes/consents.js";
import { maintenanceRoutes } from "./routes/maintenance.js";
import { statementRoutes } from "./routes/statements.js";
import { subscriptionRoutes } from "./routes/subscriptions.js";
import { testEventRoutes } from "./routes/test-event.js";
import type { AppState } from "./state.js";

/** The routes under one path prefix ("" at the root). */
export interface RouteArea {
  prefix: string;
  routes: readonly Route[];
}

/**
 * Statements live under the path of `productsUrl`; notifications, consents
 * and maintenance under the path of `baseUrl`. Areas are tried in order and
 * the first route that matches answers.
 */
export function routeTable(state: AppState, basePath: string): RouteArea[] {
  return [
    { prefix: state.productsPath, routes: statementRoutes(state) },
    { prefix: basePath, routes: [...subscriptionRoutes(state), ...testEventRoutes(state), ...maintenanceRoutes(), ...consentRoutes(state)] },
  ];
}

/** The route a path names, "malformed" for a bad percent-encoding, or undefined for none. */
export function locate(table: readonly RouteArea[], pathname: string): RouteMatch | "malformed" | undefined {
  for (const { prefix, routes } of table) {
    if (prefix !== "" && pathname !== prefix && !pathname.startsWith(`${prefix}/`)) continue;
    const segments = splitPath(pathname.slice(prefix.length));
    if (!segments) return "malformed";
    const match = matchRoute(routes, segments);
    if (match) return match;
  }
  return undefined;
}
