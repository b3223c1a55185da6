import { MAX_BODY_BYTES, readLimitedBody } from "./body.js";
import { DeliveryQueue, type DeliveryOptions, type DeliveryTransport, type WebhookDelivery, type WebhookTlsOptions } from "./delivery.js";
import { DocumentSigner } from "./documents.js";
import {
  CORS_HEADERS,
  INTERACTION_ID,
  internalServerError,
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
import { FaultInjector, type FaultKind, type FaultOptions } from "./faults.js";
import { checkRedirectUris, checkVariations, positiveNumber } from "./options.js";
import { SandboxIdp, type AuthorizeOptions, type AuthStats } from "./idp/idp.js";
import { ProviderRateLimiter, type ProviderRateLimits, type ProviderRateLimitStats } from "./provider-rate-limit.js";
import { RateLimiter, type RateLimitOptions } from "./rate-limit.js";
import { ACTOR_TYPE, RequestLog, type RecordedRequest } from "./request-log.js";
import { allowedMethods, matchRoute, splitPath, type Route, type RouteContext, type RouteMatch } from "./router.js";
import { consentRoutes } from "./routes/consents.js";
import { maintenanceRoutes } from "./routes/maintenance.js";
import { serveDocument, statementRoutes } from "./routes/statements.js";
import { subscriptionRoutes } from "./routes/subscriptions.js";
import { testEventRoutes } from "./routes/test-event.js";
import { SANDBOX_TOKEN, SEED_DATA, seedCopy, type MockSeed } from "./seed.js";
import type { AppState } from "./state.js";
import type { Subscription } from "./types.js";

/** Default `baseUrl` of the msw handlers and of a bare `createMockApp()`. */
export const DEFAULT_BASE_URL = "https://sandbox.fdxkit.test";
/** Default `documentsUrl` of the msw handlers and of `createMockApp()` with `documents: "redirect"`. */
export const DEFAULT_DOCUMENTS_URL = "https://documents.sandbox.fdxkit.test";
/** Default `idpUrl` (the identity provider's issuer) of the msw handlers and of `createMockApp()`. */
export const DEFAULT_IDP_URL = "https://idp.sandbox.fdxkit.test";
/** Default `clientId` of the identity provider's one registered client. */
export const SANDBOX_CLIENT_ID = "fdxkit-sandbox-app";
/** Default `clientSecret` of that client (a sandbox secret: the CLI prints it). */
export const SANDBOX_CLIENT_SECRET = "fdxkit-sandbox-secret";
export { DEFAULT_REDIRECT_URIS } from "./options.js";

/** Options shared by `createMockApp`, `startMockServer` and `createMockHandlers`. */
export interface MockOptions {
  /** Bearer token every call must carry. Default: {@link SANDBOX_TOKEN}. */
  token?: string;
  /** Past `limit` requests in a `windowMs` window, calls answer 429/1207 with `Retry-After`. Default: no limit. */
  rateLimit?: RateLimitOptions;
  /**
   * `{ [providerId]: { limit, windowMs } }`: a provider's own limit on
   * statement calls (lists, pages, documents), counted in fixed windows of
   * `windowMs` across every caller, as a provider counts one client's calls.
   * Past `limit` in a window they answer 429/1207 with `Retry-After` (the
   * seconds until the window ends, at least 1). Documents served from
   * `documentsUrl` are not counted. Default: no limit.
   */
  providerRateLimits?: ProviderRateLimits;
  /** Webhook delivery: retries, the time limit of an attempt, the fetch used. */
  delivery?: DeliveryOptions;
  /**
   * The waits before each retry of a webhook delivery that got no 2xx answer
   * within 10 s, in milliseconds, one retry per entry. Default
   * `[1000, 5000, 25000]`, as the real service (three retries). Tests pass
   * short ones (`[10, 20, 30]`).
   */
  deliveryRetryDelaysMs?: readonly number[];
  /**
   * Mutual TLS for deliveries to `https:` callback URLs: the client
   * certificate (`cert`, `key`) the sandbox presents, and the CA (`ca`) it
   * trusts for the receiver's certificate. Real server (`startMockServer`)
   * only: msw handlers deliver through `fetch` in the same process, with no
   * TLS handshake to take part in, and refuse the option.
   */
  webhookTls?: WebhookTlsOptions;
  /**
   * How statement pages say where the next one is. `"links"` (default):
   * `links.next.href` / `links.prev.href`. `"page"`: an FDX page object
   * `page: { nextOffset, totalElements }` and no `links`; the next page is the
   * first URL with `offset=<nextOffset>`.
   */
  pagination?: "links" | "page";
  /** `false`: pages carry no `links.prev` (nor `page.prevOffset`), as some providers do. Default `true`. */
  prevLinks?: boolean;
  /**
   * `"direct"` (default): a statement GET answers the PDF. `"redirect"`: it
   * answers 302 to a signed single-statement URL on a second origin
   * (`documentsUrl`) that refuses any request carrying `Authorization`.
   */
  documents?: "direct" | "redirect";
  /**
   * Providers (ids) whose statement calls — lists, pages, documents — must
   * carry `FDX-API-Actor-Type: USER` or `BATCH`, as some real providers
   * require: without it (or with another value) they answer 400 with the
   * statement calls' `{ code: 401, message: "Invalid Input" }` and a
   * `debugMessage` naming the header. Default: none.
   */
  requireActorType?: readonly string[];
  /** Milliseconds to wait before every answer. Default 0. */
  latencyMs?: number;
  /**
   * `{ rate, seed? }`: that share of requests (0–1) gets a fault instead of its
   * answer — 503 Scheduled Maintenance, 429 with `Retry-After: 1`, or (real
   * server only) a connection reset — the same sequence for the same `seed`.
   */
  faults?: FaultOptions;
  /** The identity provider's client id. Default {@link SANDBOX_CLIENT_ID}. */
  clientId?: string;
  /** The identity provider's client secret. Default {@link SANDBOX_CLIENT_SECRET}. */
  clientSecret?: string;
  /**
   * Redirect URIs registered for the client. A loopback one (`http:` to
   * 127.0.0.1, [::1] or localhost) matches on any port with exactly its path
   * (RFC 8252); any other matches exactly. Default {@link DEFAULT_REDIRECT_URIS}.
   */
  redirectUris?: string[];
  /**
   * `true` (as the real service): statement calls need an unexpired id token
   * of the identity provider whose consent is `ACTIVE` — else 401
   * `{"code":602,"message":"Customer not authorized"}` — and reach only its
   * accounts (others: 404 701). Default `false`: the service token works there
   * too (a valid id token as well).
   */
  requireUserTokens?: boolean;
  /** Lifetime of id tokens and of the access tokens issued with them. Default 24 hours. */
  idTokenTtlMs?: number;
  /** Lifetime of authorization codes. Default 5 minutes. */
  codeTtlMs?: number;
  /**
   * The issuer the identity provider's discovery document, id tokens and
   * callbacks (`iss`) name, e.g. `"/sandbox"` as the real network's sandbox
   * does. Default: its URL (`idpUrl`).
   */
  idpIssuer?: string;
}

/** Options of {@link createMockApp}. */
export interface MockAppOptions extends MockOptions {
  /** Where notification and consent paths live. Default `https://sandbox.fdxkit.test`. */
  baseUrl?: string;
  /** Where statement paths live. Default: `baseUrl` + `/products`. */
  productsUrl?: string;
  /**
   * The second origin documents are served from with `documents: "redirect"`
   * (another origin than `baseUrl` and `productsUrl`). Default `https://documents.sandbox.fdxkit.test`.
   */
  documentsUrl?: string;
  /**
   * The identity provider's issuer URL, under which its endpoints live (another
   * origin than `baseUrl`, `productsUrl` and `documentsUrl`). Default `https://idp.sandbox.fdxkit.test`.
   */
  idpUrl?: string;
}

/** Controls and state of a mock instance (the app, the server and the msw handlers all expose them). */
export interface MockControls {
  readonly baseUrl: string;
  readonly productsUrl: string;
  /** The bearer token the mock expects. */
  readonly token: string;
  /** The origin signed document URLs point to with `documents: "redirect"`; `undefined` otherwise. */
  readonly documentsUrl: string | undefined;
  /** Faults injected so far by the `faults` option (0 without it). */
  readonly faultCount: number;
  /** Seeded data, the same for every instance (a copy: changing it changes nothing served). */
  readonly seed: MockSeed;
  /**
   * Snapshots of the last 1,000 webhook deliveries (test events and the
   * mock's own events), oldest first, with each attempt and its status.
   */
  deliveries(): WebhookDelivery[];
  /**
   * Delivers a notification once more, as a redelivery of the real service
   * would (same body, same `notificationId`; retried like any delivery), and
   * resolves with its record once it settles. Rejects when no kept delivery
   * has that id.
   */
  redeliver(notificationId: string): Promise<WebhookDelivery>;
  /**
   * The last 1,000 requests this instance received, oldest first: each one's
   * method, path (with its query) and `FDX-API-Actor-Type` header.
   */
  requests(): RecordedRequest[];
  /** Snapshot of the current subscriptions, oldest first. */
  readonly subscriptions: Subscription[];
  /**
   * The identity provider's URL (its own origin), under which `/auth`, `/token`, `/revoke`, `/keys` and
   * `/.well-known/openid-configuration` live; also its issuer unless `idpIssuer` names another.
   */
  readonly idpUrl: string;
  /** The client id registered at the identity provider. */
  readonly clientId: string;
  /** That client's secret. */
  readonly clientSecret: string;
  /**
   * Goes through the identity provider's sign-in and consent pages as a
   * browser would (no browser needed; its cookies kept from call to call
   * until `reset()`, so a signed-in user is not asked again for the
   * password) and resolves with the callback URL the
   * browser would land on: `redirect_uri?code&state&iss`, or
   * `?error=access_denied&state&iss` with `deny: true`. Rejects when the IdP
   * shows an error page (unknown client, unregistered redirect URI, an
   * account the user does not own).
   */
  authorize(authorizationUrl: string, options?: AuthorizeOptions): Promise<string>;
  /**
   * The end user revokes at the provider: the consent turns `REVOKED`, id
   * tokens of it answer 602, its refresh token is refused, and a
   * `CONSENT_REVOKED` notification is posted to every subscription of that
   * type. Rejects with a `RangeError` for an unknown consent id; a consent
   * already revoked stays as it is (nothing is posted).
   */
  revokeConsent(consentId: string): Promise<void>;
  /** What the identity provider did since the start (or the last `reset`). */
  authStats(): AuthStats;
  /**
   * Per provider of `providerRateLimits`: the statement calls counted against
   * its limit (`requests`) and those answered 429 (`limited`), since the start
   * or the last `reset()`.
   */
  rateLimitStats(): Record<string, ProviderRateLimitStats>;
  /** `true`: every call answers 503 Scheduled Maintenance until switched off. */
  setMaintenance(on: boolean): void;
  /** The next `count` API calls answer 500 Internal server error (default 1), e.g. to test retries. */
  failNext(count?: number): void;
  /** Resolves when no webhook delivery is in flight. */
  idle(): Promise<void>;
  /**
   * Back to the initial state: no subscriptions or deliveries, maintenance off, rate limit windows and counts, `failNext` and the fault sequence restarted;
   * the identity provider forgets its codes, refresh tokens, consents and counts.
   */
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

const PREFLIGHT_HEADERS = `Authorization, Content-Type, Accept, ${INTERACTION_ID}, ${ACTOR_TYPE}`;
const ALLOWED_METHODS = "GET, POST, PATCH, DELETE, OPTIONS";

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

/** What a transport adds to the app: the real server can reset connections, msw cannot. */
export interface Transport {
  /** Fault kinds the transport can carry out. */
  faultKinds: readonly FaultKind[];
  /** Posts webhooks over mutual TLS with `webhookTls` (the real server only). */
  mutualTls?: (tls: WebhookTlsOptions) => DeliveryTransport;
}

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
  const baseUrl = trimSlash(new URL(options.baseUrl ?? DEFAULT_BASE_URL).href);
  const productsUrl = trimSlash(new URL(options.productsUrl ?? `${baseUrl}/products`).href);
  const { latencyMs, ...variations } = checkVariations(options);
  let documents: DocumentSigner | undefined;
  if (variations.documents === "redirect") {
    documents = new DocumentSigner(options.documentsUrl ?? DEFAULT_DOCUMENTS_URL);
    if ([baseUrl, productsUrl].some((url) => new URL(url).origin === documents?.origin)) {
      throw new TypeError("documentsUrl must be another origin than baseUrl and productsUrl");
    }
  }
  const idpUrl = trimSlash(new URL(options.idpUrl ?? DEFAULT_IDP_URL).href);
  const idpOrigin = new URL(idpUrl).origin;
  if ([baseUrl, productsUrl, ...(documents ? [documents.origin] : [])].some((url) => new URL(url).origin === idpOrigin)) {
    throw new TypeError("idpUrl must be another origin than baseUrl, productsUrl and documentsUrl");
  }
  if (options.requireUserTokens !== undefined && typeof options.requireUserTokens !== "boolean") throw new TypeError("requireUserTokens must be a boolean");
  const requireUserTokens = options.requireUserTokens ?? false;
  const redirectUris = checkRedirectUris(options.redirectUris);
  const idTokenTtlMs = positiveNumber("idTokenTtlMs", options.idTokenTtlMs, 24 * 60 * 60 * 1000);
  const codeTtlMs = positiveNumber("codeTtlMs", options.codeTtlMs, 5 * 60 * 1000);
  if (options.idpIssuer !== undefined && (typeof options.idpIssuer !== "string" || !/^\S+$/.test(options.idpIssuer))) {
    throw new TypeError(`idpIssuer must be a non-empty string without spaces, got ${JSON.stringify(options.idpIssuer)}`);
  }
  const token = options.token ?? SANDBOX_TOKEN;
  const seed = seedCopy();
  if (options.webhookTls !== undefined && !transport.mutualTls) {
    throw new TypeError("webhookTls needs the real server (startMockServer): msw handlers deliver through fetch, with no TLS handshake");
  }
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
    variations,
    documents,
  };
  const areas: [prefix: string, routes: Route[]][] = [
    [state.productsPath, statementRoutes(state)],
    [
      trimSlash(new URL(baseUrl).pathname),
      [...subscriptionRoutes(state), ...testEventRoutes(state), ...maintenanceRoutes(), ...consentRoutes(state)],
    ],
  ];
  const idp = new SandboxIdp(
    {
      idpUrl,
      ...(options.idpIssuer === undefined ? {} : { issuer: options.idpIssuer }),
      clientId: options.clientId ?? SANDBOX_CLIENT_ID,
      clientSecret: options.clientSecret ?? SANDBOX_CLIENT_SECRET,
      redirectUris,
      idTokenTtlMs,
      codeTtlMs,
      users: SEED_DATA.users,
    },
    state,
  );
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

  function fault(kind: FaultKind): Response {
    if (kind === "reset") return Response.error();
    return kind === "maintenance" ? scheduledMaintenance() : tooManyRequests(1);
  }

  // Order: preflight, fault, documents origin, maintenance, rate limit, path,
  // method, token, version, provider rate limit, failNext, body size, handler. Nothing reads the body before
  // the token is checked.
  async function handle(request: Request): Promise<Response> {
    if (request.method === "OPTIONS") return preflight(request);
    const kind = faults?.next();
    if (kind) return fault(kind);
    const url = new URL(request.url);
    // An object store: no maintenance, rate limit or bearer token of the API.
    if (documents && url.origin === documents.origin) return serveDocument(state, request);
    // Another service: no maintenance, rate limit or bearer token of the API either.
    if (url.origin === idp.origin) return idp.serves(url) ? idp.handle(request) : notFound();
    if (maintenance) return scheduledMaintenance();
    const retryAfter = rateLimiter?.take();
    if (retryAfter !== undefined) return tooManyRequests(retryAfter);

    const match = locate(url.pathname);
    if (match === "malformed") return invalidInput("Malformed percent-encoding in the path");
    if (!match) return notFound();
    const { route, params } = match;
    const handler = route.handlers[request.method];
    if (!handler) {
      const allow = [...allowedMethods(route), "OPTIONS"];
      return route.plainTextMethodNotAllowed ? maintenanceMethodNotAllowed(allow) : methodNotAllowed(allow);
    }
    let grant: RouteContext["grant"];
    if (route.userTokens) {
      const caller = await idp.statementCaller(request, token, requireUserTokens);
      if (caller instanceof Response) return caller;
      grant = caller;
    } else {
      const tokenProblem = checkToken(request);
      if (tokenProblem) return tokenProblem;
    }
    const version = params.version ?? "";
    if (!route.versions.includes(version)) return versionNotSupported(version);
    // Only statement paths name a provider; its limit counts the calls it would serve.
    const providerRetryAfter = params.providerId === undefined ? undefined : providerLimiter.take(params.providerId);
    if (providerRetryAfter !== undefined) return tooManyRequests(providerRetryAfter);
    if (failures > 0) {
      failures--;
      throw new Error("failNext: simulated unprocessed request");
    }
    const body = await readLimitedBody(request);
    if (!body) return payloadTooLarge(MAX_BODY_BYTES);
    return handler({ request, url, params, body, grant });
  }

  return {
    baseUrl,
    productsUrl,
    token,
    seed,
    documentsUrl: documents?.origin,
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
    clientId: options.clientId ?? SANDBOX_CLIENT_ID,
    clientSecret: options.clientSecret ?? SANDBOX_CLIENT_SECRET,
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
        response = await handle(request);
      } catch {
        response = internalServerError();
      }
      // The IdP's pages and token endpoints are never called by a browser from another origin.
      return finishResponse(response, request.headers.get(INTERACTION_ID), idp.allowsCors(new URL(request.url)));
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
      state.consents.clear();
      idp.reset();
      deliveries.clear();
      log.clear();
      rateLimiter?.reset();
      providerLimiter.reset();
      faults?.reset();
      maintenance = false;
      failures = 0;
    },
    dispose: () => deliveries.dispose(),
  };
}
