import type { ActorType, RateBudget } from "../rate-budget/types.js";

export type { ActorType };
import type { FdxError } from "./error.js";

/** What a token function is told when it is called: before every attempt, and once more after a 401. */
export interface TokenContext {
  /** Undefined before an attempt; after a 401, the token the server just refused (hand back another, or the 401 is thrown). */
  rejected: string | undefined;
  /** The call's abort signal: a token function that waits should stop when it aborts. */
  signal: AbortSignal | undefined;
}

/**
 * A bearer token, or a function called before every attempt (so a refreshing
 * provider works), and once more after a 401 with `{ rejected }`.
 */
export type TokenProvider = string | ((context: TokenContext) => string | Promise<string>);

/** A `fetch`-compatible function. The SDK calls it with a single `Request` (`globalThis.fetch` itself, given as `fetch`, as `fetch(url, init)`). */
export type FetchLike = (input: Request) => Promise<Response>;

/** API versions used in request paths. */
export interface ApiVersions {
  /** Notification paths (`/notifications/{v}/…`). Default `"v1"`, the only version the service implements. */
  notifications: string;
  /** Consent path (`/consents/{v}/…`). Default `"v1"`. */
  consents: string;
  /** Statement paths (`/statements/{v}/…`). Default `"v2"`, as in the service's examples. */
  statements: string;
}

/** What every hook is told about the attempt it observes. */
export interface HookEventBase {
  method: string;
  /** The absolute URL of the attempt. */
  url: string;
  /** The attempt's number, counting from 1. */
  attempt: number;
  /** The `x-fapi-interaction-id` sent with the call (the same on every attempt); `undefined` when none is sent. */
  interactionId: string | undefined;
}

/** `hooks.onRequest`: before an attempt is sent. */
export interface RequestHookEvent extends HookEventBase {
  /** The outgoing headers, without `Authorization` (set after the hook, and not replaceable by it). A hook may add headers. */
  headers: Headers;
}

/** `hooks.onResponse`: an attempt got a response (any status), once its headers arrived. */
export interface ResponseHookEvent extends HookEventBase {
  status: number;
  headers: Headers;
  /** From just before the attempt was sent until its headers arrived. */
  durationMs: number;
}

/** `hooks.onRetry`: an attempt failed and the call will try again after `delayMs`. */
export interface RetryHookEvent extends HookEventBase {
  /** What the failed attempt (`attempt`) ended in. */
  error: FdxError;
  /** The wait before the next attempt (the server's `Retry-After`, or the backoff). */
  delayMs: number;
}

/**
 * Observers of every attempt of every call, page and download (token
 * requests of `clientCredentials` excepted). A hook may return a promise,
 * which is awaited; a hook that throws fails the call (no retry) with an
 * `FdxError` whose `cause` is what it threw.
 */
export interface ClientHooks {
  /** Before every attempt is sent; may add headers (never sees nor replaces `Authorization`). */
  onRequest?: (event: RequestHookEvent) => void | Promise<void>;
  /** For every attempt that got a response, whatever its status, once its headers arrived. */
  onResponse?: (event: ResponseHookEvent) => void | Promise<void>;
  /** Before the wait for the next attempt, with the error the failed one ended in. */
  onRetry?: (event: RetryHookEvent) => void | Promise<void>;
}

/**
 * The agents Node's own transport sends through: an `http.Agent` for
 * `http:` URLs and an `https.Agent` for `https:` ones (typed loosely so the
 * browser build needs no Node types). Either left out keeps the SDK's own
 * keep-alive agent.
 */
export interface NodeAgents {
  /** An `http.Agent` (from `node:http`). */
  http?: object;
  /** An `https.Agent` (from `node:https`). */
  https?: object;
}

/** Options of `createClient`. */
export interface ClientOptions {
  /** `{base_url}` of the service: notification and consent calls. May carry a path prefix. */
  baseUrl: string;
  /** `{products_url}`: statement calls. Defaults to `baseUrl`. */
  productsUrl?: string;
  /** Bearer token, or a function returning one; called before every attempt. */
  token: TokenProvider;
  /**
   * Custom fetch, used for every request when given. Default: in Node,
   * Node's own transport (`node:http`/`node:https` with keep-alive agents;
   * `fetch: globalThis.fetch` chooses fetch instead); elsewhere
   * `globalThis.fetch`, looked up at call time (so msw and late polyfills work).
   */
  fetch?: FetchLike | typeof globalThis.fetch;
  /** Node only: the agents of Node's own transport (proxies, TLS options, socket limits); unused when `fetch` is given. */
  agent?: NodeAgents;
  /**
   * Per attempt: a JSON call until its body is read; a download until its
   * headers arrive, and then each wait for the next chunk of its body.
   * Default 30 000 ms.
   */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** A JSON answer's body, counted after decompression, at most (larger ones reject with `FdxResponseError`). Default 16 MiB. */
  maxResponseBytes?: number;
  /**
   * A download's body, counted after decompression, at most: past it the
   * document's stream errors with `FdxResponseError` (and `saveStatement`
   * leaves no file). Default 1 GiB; `statements.download` may set it per call.
   */
  maxDownloadBytes?: number;
  /** Send `x-fapi-interaction-id` (a random UUID per call) on every call. Default true. */
  interactionIds?: boolean;
  /** Observe every attempt: `onRequest`, `onResponse`, `onRetry`. */
  hooks?: ClientHooks;
  /** API versions; name only those you want to change. */
  versions?: Partial<ApiVersions>;
  /** Permit `http://` callback URLs to localhost, 127.0.0.1 and [::1] (local development). Default false. */
  allowInsecureCallbackUrls?: boolean;
  /** Check response bodies against the service's schemas and throw `FdxResponseError` on a mismatch. Default false. */
  validateResponses?: boolean;
  /** Sent as `FDX-API-Actor-Type` on statement calls (lists, every page, downloads); never on notification or consent calls. Default: not sent. */
  actorType?: ActorType;
  /**
   * The budget statement calls take from, per provider (`memoryRateBudget()`, or `postgresRateBudget` from
   * `@fdxkit/postgres` for every process of the app): every attempt of a list, page or download waits for its
   * provider's turn — user calls before batch ones — before its timeout starts, and a 429 from the provider
   * pauses that provider for everyone sharing the budget. Default: none.
   */
  rateBudget?: RateBudget;
}

/** Per-call options, the optional last argument of every method. */
export interface RequestOptions {
  /** Cancels the call, including retry waits and (for downloads) the body stream. */
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout. */
  timeoutMs?: number;
  /** Overrides the client's retry count. */
  maxRetries?: number;
  /** Extra request headers. `Authorization` is always the client's token. */
  headers?: Record<string, string>;
  /** The `x-fapi-interaction-id` to send (default: a random UUID per call, unless the client has `interactionIds: false`). */
  interactionId?: string;
  /** Overrides the client's `actorType` for this call (statement calls only carry it). */
  actorType?: ActorType;
  /** The provider whose rate budget a statement call takes from, when its URL does not name one (a document link of another shape). */
  providerId?: string;
  /** Downloads only: overrides the client's `maxDownloadBytes` for this document. */
  maxDownloadBytes?: number;
}
