// The shapes the request path works with: the settings it sends under, one
// call, its answers, and how an attempt sends. Kept apart from the engine so
// the modules around it (body reading, redirects, the transports) depend on
// these shapes and not on each other.
import type { FdxError } from "../core/error.js";
import type { ActorType, ClientHooks, FetchLike, NodeAgents, RequestOptions, TokenProvider } from "../core/options.js";
import type { RateBudget } from "../rate-budget/types.js";
import type { Attempt } from "./abort.js";

/** What the request function needs of a client (or of `clientCredentials`, which has no token and no hooks). */
export interface Transport {
  /** Absent for requests that carry their own `authorization` (the token endpoint). */
  token: TokenProvider | undefined;
  fetch: FetchLike | undefined;
  /** How each attempt sends; absent: fetch. */
  send?: Sender | undefined;
  agent?: NodeAgents | undefined;
  timeoutMs: number;
  maxRetries: number;
  maxResponseBytes: number;
  interactionIds: boolean;
  hooks: ClientHooks | undefined;
  actorType?: ActorType | undefined;
  rateBudget?: RateBudget | undefined;
  /** The client's last token that passed the header check, so a string token is scanned once, not on every call. */
  tokenMemo?: TokenMemo | undefined;
}

export interface TokenMemo {
  last: string | undefined;
}

export type Method = "GET" | "POST" | "PATCH" | "DELETE";

/** One call: what to send, and how to take the answer. */
export interface Call {
  method: Method;
  url: string;
  /** The body, already serialised, with its media type. */
  body?: { type: string; text: string };
  /** Sent as `Accept`; `RequestOptions.headers` may override it. Default `application/json`. */
  accept?: string;
  /** Overrides the bearer token (the token endpoint's Basic credential). */
  authorization?: string;
  /** More strings no error may show (a client secret), beyond the bearer token. */
  secrets?: readonly string[];
  /** A product (statement) call: it says who is asking (`FDX-API-Actor-Type`) when an actor type is set. */
  product?: boolean;
  /** The provider whose rate budget each attempt takes from (product calls of a client with a `rateBudget`). */
  providerId?: string | undefined;
  options: RequestOptions | undefined;
}

/** How to take a 2xx answer: its body parsed as JSON, as text, or left to stream. */
export type Mode = "json" | "text" | "stream";

/** A 2xx answer read whole (its body under `maxResponseBytes`). */
export interface BodyAnswer {
  status: number;
  /** The answer, its body read (for its headers: Node's own transport builds them only when asked). */
  response: Reply;
  text: string;
  /** The parsed body in `"json"` mode: `undefined` for an empty one (204). */
  data: unknown;
  interactionId: string | undefined;
  /** What no error may show (the token sent, in every form): for errors about this answer made after it (a page's links). */
  secrets: () => readonly string[];
}

/** A 2xx answer whose body is left to stream (downloads). */
export interface StreamAnswer {
  response: Reply;
  interactionId: string | undefined;
  /** What no error may show (the token sent, in every form): for the errors of the body stream. */
  secrets: () => readonly string[];
}

/** How one attempt ended short of an answer, for the retry loop to weigh. */
export interface Failure {
  error: FdxError;
  /** Absent when no response arrived. */
  status?: number;
  retryAfterMs?: number;
  /** Whether the answer came from the URL's own origin (not from where a download was redirected). */
  sameOrigin?: boolean;
}

/** What one attempt ends in: the answer, or a failure a retry may mend. */
export type Outcome = BodyAnswer | StreamAnswer | Failure;

/**
 * What the SDK reads of an answer: a `Response` is one, and so is what
 * Node's own transport makes without the cost of a web `Response` and its
 * stream.
 */
export interface Reply {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  /** The URL answered ("" when unknown). */
  readonly url: string;
  readonly type: ResponseType;
  readonly headers: Headers;
  readonly body: ReplyBody | null;
}

/** The part of a `ReadableStream` the SDK uses: one reader, or a cancel. */
export interface ReplyBody {
  getReader(): { read(): Promise<ReadableStreamReadResult<Uint8Array>>; cancel(reason?: unknown): Promise<void> };
  cancel(reason?: unknown): Promise<void>;
}

/**
 * How an attempt sends one request: as `fetch(url, init)` with `redirect:
 * "manual"` would, stopped when the attempt is (its timeout, the caller's
 * abort).
 */
export interface Sender {
  (t: Transport, url: string, init: RequestInit, attempt: Attempt): Promise<Reply>;
  /**
   * True when a stopped attempt ends every step of this sender on its own
   * (the wait for the answer and its body read). The request path then need
   * not race each step against the attempt's end, which is only a cost.
   */
  readonly endsWithAttempt?: boolean;
}
