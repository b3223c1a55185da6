/** A bearer token, or a function called before every attempt (so a refreshing provider works). */
export type TokenProvider = string | (() => string | Promise<string>);

/** A `fetch`-compatible function. The SDK always calls it with a single `Request`. */
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

/** Options of `createClient`. */
export interface ClientOptions {
  /** `{base_url}` of the service: notification and consent calls. May carry a path prefix. */
  baseUrl: string;
  /** `{products_url}`: statement calls. Defaults to `baseUrl`. */
  productsUrl?: string;
  /** Bearer token, or a function returning one; called before every attempt. */
  token: TokenProvider;
  /** Custom fetch. Default: `globalThis.fetch`, looked up at call time (so msw and late polyfills work). */
  fetch?: FetchLike | typeof globalThis.fetch;
  /** Per attempt, until response headers arrive. Default 30 000 ms. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** API versions; name only those you want to change. */
  versions?: Partial<ApiVersions>;
  /** Permit `http://` callback URLs to localhost, 127.0.0.1 and [::1] (local development). Default false. */
  allowInsecureCallbackUrls?: boolean;
  /** Check response bodies against the service's schemas and throw `FdxResponseError` on a mismatch. Default false. */
  validateResponses?: boolean;
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
}
