// One mock of the service as a Fetch-API handler: this module wires an
// instance together (its state, the identity provider, the limits and the
// controls); the request steps live in app-handle.ts and the routes in
// app-routes.ts.
import { DeliveryQueue } from "./delivery.js";
import { CORS_HEADERS, INTERACTION_ID, internalServerError } from "./errors.js";
import { FaultInjector } from "./faults.js";
import { SandboxIdp } from "./idp/idp.js";
import { ProviderRateLimiter } from "./provider-rate-limit.js";
import { RateLimiter } from "./rate-limit.js";
import { RequestLog } from "./request-log.js";
import { handle, type Gateway } from "./app-handle.js";
import { routeTable } from "./app-routes.js";
import type { MockApp, MockAppOptions, Transport } from "./app-types.js";
import { SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET } from "./defaults.js";
import { readAppOptions, trimSlash } from "./options.js";
import { SEED_DATA, seedCopy } from "./seed.js";
import type { AppState } from "./state.js";

export {
  DEFAULT_BASE_URL,
  DEFAULT_DOCUMENTS_URL,
  DEFAULT_IDP_URL,
  DEFAULT_REDIRECT_URIS,
  SANDBOX_CLIENT_ID,
  SANDBOX_CLIENT_SECRET,
} from "./defaults.js";
export type { MockApp, MockAppOptions, MockControls, MockOptions, Transport } from "./app-types.js";

/**
 * Adds what every answer carries: CORS headers and `x-fapi-interaction-id`
 * (the request's, else a new UUID). A network error (a reset) carries nothing.
 */
export function finishResponse(response: Response, requestInteractionId: string | null, cors = true): Response {
  if (response.type === "error") return response;
  if (cors) for (const [name, value] of Object.entries(CORS_HEADERS)) response.headers.set(name, value);
  response.headers.set(INTERACTION_ID, requestInteractionId || globalThis.crypto.randomUUID());
  return response;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Creates one mock of the service: its own subscriptions, deliveries and
 * switches, and the shared seed. Routing uses the paths of `baseUrl` and
 * `productsUrl` only (never the host), so the same app answers whatever host
 * name reaches it.
 */
export function createMockApp(options: MockAppOptions = {}): MockApp {
  return createApp(options, { faultKinds: ["maintenance", "rate-limit"] });
}

/** {@link createMockApp} for a given transport (the real server adds connection resets). */
export function createApp(options: MockAppOptions, transport: Transport): MockApp {
  const settings = readAppOptions(options, transport);
  const { baseUrl, productsUrl, latencyMs, token } = settings;
  const seed = seedCopy();
  const deliveries = new DeliveryQueue(
    { ...options.delivery, ...(options.deliveryRetryDelaysMs === undefined ? {} : { retryDelaysMs: options.deliveryRetryDelaysMs }) },
    options.webhookTls === undefined ? undefined : transport.mutualTls?.(options.webhookTls),
  );
  const rateLimiter = options.rateLimit ? new RateLimiter(options.rateLimit) : undefined;
  const providerLimiter = new ProviderRateLimiter(options.providerRateLimits ?? {});
  const faults = options.faults ? new FaultInjector(options.faults, transport.faultKinds) : undefined;
  const log = new RequestLog();
  const state: AppState = {
    baseUrl,
    productsPath: trimSlash(new URL(productsUrl).pathname),
    subscriptions: new Map(),
    consents: new Map(),
    deliveries,
    pdfCache: new Map(),
    variations: settings.variations,
    documents: settings.documents,
  };
  const clientId = options.clientId ?? SANDBOX_CLIENT_ID;
  const clientSecret = options.clientSecret ?? SANDBOX_CLIENT_SECRET;
  const idp = new SandboxIdp(
    {
      idpUrl: settings.idpUrl,
      ...(options.idpIssuer === undefined ? {} : { issuer: options.idpIssuer }),
      clientId,
      clientSecret,
      redirectUris: settings.redirectUris,
      idTokenTtlMs: settings.idTokenTtlMs,
      codeTtlMs: settings.codeTtlMs,
      users: SEED_DATA.users,
    },
    state,
  );
  const app: Gateway = {
    state,
    table: routeTable(state, trimSlash(new URL(baseUrl).pathname)),
    idp,
    token,
    requireUserTokens: settings.requireUserTokens,
    faults,
    rateLimiter,
    providerLimiter,
    switches: { maintenance: false, failures: 0 },
  };
  const { switches } = app;

  return {
    baseUrl,
    productsUrl,
    token,
    seed,
    documentsUrl: settings.documents?.origin,
    get faultCount() {
      return faults?.count ?? 0;
    },
    deliveries: () => deliveries.records,
    redeliver: (notificationId) => deliveries.redeliver(notificationId),
    requests: () => log.records,
    get subscriptions() {
      return [...state.subscriptions.values()].map((s) => ({ ...s }));
    },
    idpUrl: idp.baseUrl,
    clientId,
    clientSecret,
    authorize: (authorizationUrl, authorizeOptions) => idp.authorize(authorizationUrl, authorizeOptions),
    async revokeConsent(consentId) {
      idp.revokeConsent(consentId);
    },
    authStats: () => idp.stats(),
    rateLimitStats: () => providerLimiter.stats(),
    async fetch(request) {
      log.add(request);
      if (latencyMs > 0) await delay(latencyMs);
      let response: Response;
      try {
        response = await handle(app, request);
      } catch {
        response = internalServerError();
      }
      // The IdP's pages and token endpoints are never called by a browser from another origin.
      return finishResponse(response, request.headers.get(INTERACTION_ID), idp.allowsCors(new URL(request.url)));
    },
    setMaintenance(on) {
      switches.maintenance = on;
    },
    failNext(count = 1) {
      switches.failures += count;
    },
    idle: () => deliveries.idle(),
    reset() {
      state.subscriptions.clear();
      state.consents.clear();
      idp.reset();
      deliveries.clear();
      log.clear();
      rateLimiter?.reset();
      providerLimiter.reset();
      faults?.reset();
      switches.maintenance = false;
      switches.failures = 0;
    },
    dispose: () => deliveries.dispose(),
  };
}
