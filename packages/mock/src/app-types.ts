// The public shapes of one mock instance (its options, controls and app)
// and what a transport adds to it, apart from the wiring so that the option
// checks and the server can name them.
import type { DeliveryOptions, DeliveryTransport, WebhookDelivery, WebhookTlsOptions } from "./delivery.js";
import type { FaultKind, FaultOptions } from "./faults.js";
import type { AuthorizeOptions, AuthStats } from "./idp/idp.js";
import type { ProviderRateLimits, ProviderRateLimitStats } from "./provider-rate-limit.js";
import type { RateLimitOptions } from "./rate-limit.js";
import type { RecordedRequest } from "./request-log.js";
import type { MockSeed } from "./seed.js";
import type { Subscription } from "./types.js";

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

/** What a transport adds to the app: the real server can reset connections, msw cannot. */
export interface Transport {
  /** Fault kinds the transport can carry out. */
  faultKinds: readonly FaultKind[];
  /** Posts webhooks over mutual TLS with `webhookTls` (the real server only). */
  mutualTls?: (tls: WebhookTlsOptions) => DeliveryTransport;
}
