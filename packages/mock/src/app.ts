import { DeliveryQueue, type DeliveryOptions, type WebhookDelivery } from "./delivery.js";
import {
  CORS_HEADERS,
  internalServerError,
  invalidInput,
  maintenanceMethodNotAllowed,
  methodNotAllowed,
  notFound,
  scheduledMaintenance,
  tooManyRequests,
  unauthorized,
  versionNotSupported,
} from "./errors.js";
import { RateLimiter, type RateLimitOptions } from "./rate-limit.js";
import { allowedMethods, matchRoute, splitPath, type Route, type RouteMatch } from "./router.js";
import { consentRoutes } from "./routes/consents.js";
import { maintenanceRoutes } from "./routes/maintenance.js";
import { statementRoutes } from "./routes/statements.js";
import { subscriptionRoutes } from "./routes/subscriptions.js";
import { testEventRoutes } from "./routes/test-event.js";
import { SANDBOX_TOKEN, seedCopy, type MockSeed } from "./seed.js";
import type { AppState } from "./state.js";
import type { Subscription } from "./types.js";

/** Default `baseUrl` of the msw handlers and of a bare `createMockApp()`. */
export const DEFAULT_BASE_URL = "https://sandbox.fdxkit.test";

/** Options shared by `createMockApp`, `startMockServer` and `createMockHandlers`. */
export interface MockOptions {
  /** Bearer token every call must carry. Default: {@link SANDBOX_TOKEN}. */
  token?: string;
  /** Past `limit` requests in a `windowMs` window, calls answer 429/1207 with `Retry-After`. Default: no limit. */
  rateLimit?: RateLimitOptions;
  /** Webhook delivery of test events (attempts, backoff, timeout, fetch). */
  delivery?: DeliveryOptions;
}

/** Options of {@link createMockApp}. */
export interface MockAppOptions extends MockOptions {
  /** Where notification and consent paths live. Default `https://sandbox.fdxkit.test`. */
  baseUrl?: string;
  /** Where statement paths live. Default: `baseUrl` + `/products`. */
  productsUrl?: string;
}

/** Controls and state of a mock instance (the app, the server and the msw handlers all expose them). */
export interface MockControls {
  readonly baseUrl: string;
  readonly productsUrl: string;
  /** The bearer token the mock expects. */
  readonly token: string;
  /** Seeded data, the same for every instance (a copy: changing it changes nothing served). */
  readonly seed: MockSeed;
  /** Snapshots of the webhook deliveries of test events, oldest first. */
  readonly deliveries: WebhookDelivery[];
  /** Snapshot of the current subscriptions, oldest first. */
  readonly subscriptions: Subscription[];
  /** `true`: every call answers 503 Scheduled Maintenance until switched off. */
  setMaintenance(on: boolean): void;
  /** The next `count` API calls answer 500 Internal server error (default 1), e.g. to test retries. */
  failNext(count?: number): void;
  /** Resolves when no webhook delivery is in flight. */
  idle(): Promise<void>;
  /** Back to the initial state: no subscriptions or deliveries, maintenance off, rate limit window and `failNext` cleared. */
  reset(): void;
}

/** One in-memory mock: a Fetch-API handler plus its controls. */
export interface MockApp extends MockControls {
  /** Answers one request like the service would. Never rejects. */
  fetch(request: Request): Promise<Response>;
  /** Aborts webhook deliveries in flight (they end as `failed`) and waits for them to settle. */
  dispose(): Promise<void>;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

function preflight(request: Request): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "Access-Control-Allow-Methods": "GET, POST, PATCH, DELETE, OPTIONS",
      // Echo what the browser asks for, so custom request headers work too.
      "Access-Control-Allow-Headers": request.headers.get("Access-Control-Request-Headers") ?? "Authorization, Content-Type, Accept",
      "Access-Control-Max-Age": "600",
    },
  });
}

/**
 * Creates one mock of the service: its own subscriptions, deliveries and
 * switches, and the shared seed. Routing uses the paths of `baseUrl` and
 * `productsUrl` only (never the host), so the same app answers whatever host
 * name reaches it.
 */
export function createMockApp(options: MockAppOptions = {}): MockApp {
  const baseUrl = trimSlash(new URL(options.baseUrl ?? DEFAULT_BASE_URL).href);
  const productsUrl = trimSlash(new URL(options.productsUrl ?? `${baseUrl}/products`).href);
  const token = options.token ?? SANDBOX_TOKEN;
  const seed = seedCopy();
  const deliveries = new DeliveryQueue(options.delivery);
  const rateLimiter = options.rateLimit ? new RateLimiter(options.rateLimit) : undefined;
  const state: AppState = {
    baseUrl,
    productsPath: trimSlash(new URL(productsUrl).pathname),
    subscriptions: new Map(),
    deliveries,
    pdfCache: new Map(),
  };
  const areas: [prefix: string, routes: Route[]][] = [
    [state.productsPath, statementRoutes(state)],
    [
      trimSlash(new URL(baseUrl).pathname),
      [...subscriptionRoutes(state), ...testEventRoutes(state), ...maintenanceRoutes(), ...consentRoutes()],
    ],
  ];
  let maintenance = false;
  let failures = 0;

  function locate(pathname: string): RouteMatch | "malformed" | undefined {
    for (const [prefix, routes] of areas) {
      if (prefix !== "" && pathname !== prefix && !pathname.startsWith(`${prefix}/`)) continue;
      const segments = splitPath(pathname.slice(prefix.length));
      if (!segments) return "malformed";
      const match = matchRoute(routes, segments);
      if (match) return match;
    }
    return undefined;
  }

  function checkToken(request: Request): Response | undefined {
    const header = request.headers.get("Authorization");
    if (header === null) return unauthorized("Missing bearer token");
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || match[1] !== token) return unauthorized("Invalid bearer token");
    return undefined;
  }

  // Order: preflight, maintenance, rate limit, path, method, token, version, handler.
  async function handle(request: Request): Promise<Response> {
    if (request.method === "OPTIONS") return preflight(request);
    if (maintenance) return scheduledMaintenance();
    const retryAfter = rateLimiter?.take();
    if (retryAfter !== undefined) return tooManyRequests(retryAfter);

    const url = new URL(request.url);
    const match = locate(url.pathname);
    if (match === "malformed") return invalidInput("Malformed percent-encoding in the path");
    if (!match) return notFound();
    const { route, params } = match;
    const handler = route.handlers[request.method];
    if (!handler) {
      const allow = [...allowedMethods(route), "OPTIONS"];
      return route.plainTextMethodNotAllowed ? maintenanceMethodNotAllowed(allow) : methodNotAllowed(allow);
    }
    const tokenProblem = checkToken(request);
    if (tokenProblem) return tokenProblem;
    const version = params.version ?? "";
    if (!route.versions.includes(version)) return versionNotSupported(version);
    if (failures > 0) {
      failures--;
      throw new Error("failNext: simulated unprocessed request");
    }
    return handler({ request, url, params });
  }

  return {
    baseUrl,
    productsUrl,
    token,
    seed,
    get deliveries() {
      return deliveries.records;
    },
    get subscriptions() {
      return [...state.subscriptions.values()].map((s) => ({ ...s }));
    },
    async fetch(request) {
      let response: Response;
      try {
        response = await handle(request);
      } catch {
        response = internalServerError();
      }
      for (const [name, value] of Object.entries(CORS_HEADERS)) response.headers.set(name, value);
      return response;
    },
    setMaintenance(on) {
      maintenance = on;
    },
    failNext(count = 1) {
      failures += count;
    },
    idle: () => deliveries.idle(),
    reset() {
      state.subscriptions.clear();
      deliveries.clear();
      rateLimiter?.reset();
      maintenance = false;
      failures = 0;
    },
    dispose: () => deliveries.dispose(),
  };
}
