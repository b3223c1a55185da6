// How one request is answered: the steps every request goes through before
// a route's handler sees it, in the order the real service applies them.
import { MAX_BODY_BYTES, readLimitedBody } from "./body.js";
import {
  INTERACTION_ID,
  invalidInput,
  maintenanceMethodNotAllowed,
  methodNotAllowed,
  notFound,
  payloadTooLarge,
  scheduledMaintenance,
  tooManyRequests,
  unauthorized,
  versionNotSupported,
} from "./errors.js";
import type { FaultInjector, FaultKind } from "./faults.js";
import type { SandboxIdp } from "./idp/idp.js";
import type { ProviderRateLimiter } from "./provider-rate-limit.js";
import type { RateLimiter } from "./rate-limit.js";
import { ACTOR_TYPE } from "./request-log.js";
import { locate, type RouteArea } from "./app-routes.js";
import { allowedMethods, type Handler, type Route, type RouteContext } from "./router.js";
import { serveDocument } from "./routes/statements.js";
import type { AppState } from "./state.js";

/** The switches the controls flip: maintenance, and how many calls still fail on purpose. */
export interface Switches {
  maintenance: boolean;
  failures: number;
}

/** What answering a request needs of one mock instance. */
export interface Gateway {
  state: AppState;
  table: readonly RouteArea[];
  idp: SandboxIdp;
  /** The service's bearer token. */
  token: string;
  requireUserTokens: boolean;
  faults: FaultInjector | undefined;
  rateLimiter: RateLimiter | undefined;
  providerLimiter: ProviderRateLimiter;
  switches: Switches;
}

const PREFLIGHT_HEADERS = `Authorization, Content-Type, Accept, ${INTERACTION_ID}, ${ACTOR_TYPE}`;
const ALLOWED_METHODS = "GET, POST, PATCH, DELETE, OPTIONS";

/**
 * The answer to one request; it throws only for `failNext`, which the app
 * answers 500. Order: preflight, fault, documents origin, IdP, maintenance,
 * rate limit, path, method, token, version, provider rate limit, failNext,
 * body size, handler. Nothing reads the body before the token is checked.
 */
export async function handle(app: Gateway, request: Request): Promise<Response> {
  if (request.method === "OPTIONS") return preflight(request);
  const kind = app.faults?.next();
  if (kind) return fault(kind);
  const url = new URL(request.url);
  const early = otherService(app, request, url) ?? serviceWide(app);
  if (early) return early;
  const found = findHandler(app, request, url);
  if (found instanceof Response) return found;
  const { route, params, handler } = found;
  const grant = await admit(app, request, route);
  if (grant instanceof Response) return grant;
  const refused = beforeHandler(app, route, params);
  if (refused) return refused;
  const body = await readLimitedBody(request);
  if (!body) return payloadTooLarge(MAX_BODY_BYTES);
  return handler({ request, url, params, body, grant });
}

function preflight(request: Request): Response {
  return new Response(null, {
    status: 204,
    headers: {
      Allow: ALLOWED_METHODS,
      "Access-Control-Allow-Methods": ALLOWED_METHODS,
      // Echo what the browser asks for, so custom request headers work too.
      "Access-Control-Allow-Headers": request.headers.get("Access-Control-Request-Headers") ?? PREFLIGHT_HEADERS,
      "Access-Control-Max-Age": "600",
    },
  });
}

function fault(kind: FaultKind): Response {
  if (kind === "reset") return Response.error();
  return kind === "maintenance" ? scheduledMaintenance() : tooManyRequests(1);
}

// The documents origin and the IdP are other services than the API: no
// maintenance, rate limit or bearer token of the API applies to them.
function otherService(app: Gateway, request: Request, url: URL): Promise<Response> | Response | undefined {
  const { documents } = app.state;
  // An object store.
  if (documents && url.origin === documents.origin) return serveDocument(app.state, request);
  if (url.origin === app.idp.origin) return app.idp.serves(url) ? app.idp.handle(request) : notFound();
  return undefined;
}

/** What answers every API call alike, whatever its path: maintenance and the rate limit. */
function serviceWide(app: Gateway): Response | undefined {
  if (app.switches.maintenance) return scheduledMaintenance();
  const retryAfter = app.rateLimiter?.take();
  return retryAfter === undefined ? undefined : tooManyRequests(retryAfter);
}

interface Found {
  route: Route;
  params: Record<string, string>;
  handler: Handler;
}

/** The route and the handler of its method, or the 400, 404 or 405 answer. */
function findHandler(app: Gateway, request: Request, url: URL): Found | Response {
  const match = locate(app.table, url.pathname);
  if (match === "malformed") return invalidInput("Malformed percent-encoding in the path");
  if (!match) return notFound();
  const { route, params } = match;
  const handler = route.handlers[request.method];
  if (!handler) {
    const allow = [...allowedMethods(route), "OPTIONS"];
    return route.plainTextMethodNotAllowed ? maintenanceMethodNotAllowed(allow) : methodNotAllowed(allow);
  }
  return { route, params, handler };
}

/** The caller's grant on statement calls (undefined elsewhere), or the 401 answer. */
async function admit(app: Gateway, request: Request, route: Route): Promise<RouteContext["grant"] | Response> {
  if (route.userTokens) return app.idp.statementCaller(request, app.token, app.requireUserTokens);
  return checkToken(request, app.token);
}

function checkToken(request: Request, token: string): Response | undefined {
  const header = request.headers.get("Authorization");
  if (header === null) return unauthorized("Missing bearer token");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match || match[1] !== token) return unauthorized("Invalid bearer token");
  return undefined;
}

/** The checks of an admitted call: its version, its provider's rate limit, and `failNext`. */
function beforeHandler(app: Gateway, route: Route, params: Record<string, string>): Response | undefined {
  const version = params.version ?? "";
  if (!route.versions.includes(version)) return versionNotSupported(version);
  // Only statement paths name a provider; its limit counts the calls it would serve.
  const providerRetryAfter = params.providerId === undefined ? undefined : app.providerLimiter.take(params.providerId);
  if (providerRetryAfter !== undefined) return tooManyRequests(providerRetryAfter);
  if (app.switches.failures > 0) {
    app.switches.failures--;
    throw new Error("failNext: simulated unprocessed request");
  }
  return undefined;
}
