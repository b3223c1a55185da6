// Node's own transport: `node:http`/`node:https` with keep-alive agents
// instead of `fetch`, for the clients of the package's `node` entry given no
// `fetch`. Most of what Node's `fetch` costs is the web `Response` and its
// stream, which this transport does not build: it answers with a `Reply`
// whose body is read straight off the socket, through node:zlib where the
// answer is compressed. Limits, timeouts, aborts, redirects, hooks and errors
// stay with the request path, as they are for `fetch`.
//
// `http.request` is looked up on the module object at call time, so msw's
// Node interception (which replaces it) sees every request.
import type * as http from "node:http";
import type { Agent as HttpsAgent } from "node:https";
import type { Readable, Transform } from "node:stream";
import type { NodeAgents } from "../core/options.js";
import type { Attempt } from "../internal/abort.js";
import type { Reply, ReplyBody, Sender, Transport } from "../internal/types.js";

// Built-ins through process.getBuiltinModule, on first use, not `import`: on Node 24 an ESM import of node:http
// builds its namespace, whose lazy `WebSocket` getters load undici, and node:https brings TLS. Importing the
// entry then costs its own code only.
let httpModule: typeof http | undefined;
const nodeHttp = () => (httpModule ??= process.getBuiltinModule("node:http"));
const https = () => process.getBuiltinModule("node:https");
const zlib = () => process.getBuiltinModule("node:zlib");

// One per scheme for the process: sockets are kept and reused across clients (Node unrefs idle ones, so they never hold the process open).
let httpAgent: http.Agent | undefined;
let httpsAgent: HttpsAgent | undefined;

const DONE: ReadableStreamReadResult<Uint8Array> = { done: true, value: undefined };
const noop = () => {};

/**
 * How the `node` entry's clients given no `fetch` send. Its steps end when
 * the attempt does (a destroyed request ends its answer's body too, through
 * every decoder), so the request path need not race them.
 */
export const sendNodeTransport: Sender = Object.assign(
  (t: Transport, url: string, init: RequestInit, attempt: Attempt) => sendNode(url, init, t.agent, attempt.stopped),
  {
    endsWithAttempt: true,
  },
);

/**
 * Sends one request as `fetch(url, init)` would with `redirect: "manual"`:
 * resolves with the answer once its headers arrive (any status), rejects
 * with a `TypeError` whose `cause` is Node's error (its `code`, e.g.
 * `ECONNREFUSED`) when no answer came. `stopped` rejecting (or
 * `init.signal` aborting) destroys the request, the body included.
 */
export function sendNode(url: string, init: RequestInit, agent: NodeAgents | undefined, stopped?: Promise<never>): Promise<Reply> {
  return new Promise<Reply>((resolve, reject) => {
    const { secure, hostname, port, host, path } = target(url);
    const signal = init.signal ?? undefined;
    if (signal?.aborted) throw signal.reason;
    const body = typeof init.body === "string" ? init.body : undefined;
    const method = init.method ?? "GET";
    const options: http.RequestOptions = {
      hostname,
      port,
      path,
      method,
      headers: rawHeaders(init.headers, host, method, body),
      agent: (secure
        ? (agent?.https ?? (httpsAgent ??= new (https().Agent)({ keepAlive: true })))
        : (agent?.http ?? (httpAgent ??= new (nodeHttp().Agent)({ keepAlive: true })))) as http.Agent,
      signal,
    };
    let req: http.ClientRequest;
    let gone = false;
    const start = () => {
      req = secure ? https().request(options) : nodeHttp().request(options);
      req.on("error", (cause) => {
        // A kept-alive connection the server closed while idle (its keep-alive timeout met our next request on
        // the wire) fails a request the server never took up: a fresh connection is tried, as browsers and
        // undici do. A failure on a fresh connection is the retry loop's to weigh, which repeats no POST.
        if (req.reusedSocket && isStaleSocket(cause) && !signal?.aborted && !gone) start();
        else reject(new TypeError("request failed", { cause }));
      });
      req.on("response", (res) => resolve(new NodeReply(res, url, method)));
      req.end(body);
    };
    // A promise's handler is cheaper than an AbortSignal's listener. Destroying the request ends its answer's
    // body too (an error of its own, through every decoder), which is why this transport needs no race of the steps.
    stopped?.catch((reason: unknown) => {
      gone = true;
      req.destroy(reason instanceof Error ? reason : undefined);
    });
    start();
  });
}

const isStaleSocket = (cause: Error) => {
  const code = (cause as NodeJS.ErrnoException).code;
  return code === "ECONNRESET" || code === "EPIPE";
};

interface Target {
  secure: boolean;
  hostname: string;
  port: string;
  /** The `Host` header: the URL's host. */
  host: string;
  /** Path and query. */
  path: string;
}

type Origin = Omit<Target, "path">;

// Origins parsed before, as parsing a URL on every call is a measurable part of it. Bounded: a document host per
// download could make it grow.
const origins = new Map<string, Origin>();
// A path as the URL parser would leave it (no dot segment, "%2e" included; no fragment, space, quote or other
// character it encodes): the SDK's own paths and the links it resolved are, and are sent as they are. Any other is parsed.
const PLAIN_PATH = /^\/(?:[\w\-~!$&()*+,;=:@?/]|%(?!2e)|\.(?![./?]|$))*$/i;

/** Where `url` sends to, checked as fetch checks it: http(s) only, and no credentials in the URL (Node would send them as Basic auth). */
function target(url: string): Target {
  // The cache only spares a parse: missing it, storing nothing or forgetting early sends the same request
  // through the parse below.
  // Stryker disable next-line StringLiteral: no "/" found where one is: the parse
  const slash = url.indexOf("/", url.indexOf("//") + 2);
  // Stryker disable next-line MethodExpression: a whole URL is never a plain path: the parse
  const path = url.slice(slash);
  // Stryker disable next-line EqualityOperator,BlockStatement,ConditionalExpression: a path taken for not plain is parsed; a path taken for plain has no "/" to start it, so the pattern refuses it
  if (slash > 0 && PLAIN_PATH.test(path)) {
    // Stryker disable next-line MethodExpression: a key that is the whole URL names no origin alone: not cached
    const key = url.slice(0, slash);
    let origin = origins.get(key);
    // Stryker disable next-line BooleanLiteral,ConditionalExpression,BlockStatement: a miss parses the origin again (or the URL)
    if (!origin) {
      const parsed = new URL(key);
      // Only what names an origin alone ("http://h:1"), not one whose parse moved a part into the path.
      // Stryker disable next-line ConditionalExpression,StringLiteral,BlockStatement: an origin not cached is parsed with its URL
      if (parsed.pathname === "/" && !parsed.search && !parsed.hash && !key.endsWith("?") && !key.endsWith("#")) {
        origin = check(parsed);
        // Stryker disable next-line ConditionalExpression,EqualityOperator: clearing early or late only costs parses
        if (origins.size >= 64) origins.clear();
        origins.set(key, origin);
      }
    }
    // Stryker disable next-line ConditionalExpression: a cached origin not taken is parsed with its URL
    if (origin) return { ...origin, path };
  }
  const parsed = new URL(url);
  return { ...check(parsed), path: parsed.pathname + parsed.search };
}

function check(url: URL): Origin {
  const secure = url.protocol === "https:";
  if (!secure && url.protocol !== "http:") throw new TypeError(`the ${url.protocol} scheme is not supported`);
  if (url.username || url.password) throw new TypeError("a URL with credentials cannot be requested");
  // IPv6 literals go to Node without their brackets, as Node's own URL handling passes them.
  const host = url.hostname;
  return { secure, hostname: host.startsWith("[") ? host.slice(1, -1) : host, port: url.port, host: url.host };
}

/**
 * The headers as Node's raw list (`[name, value, …]`, as `rawHeaders`):
 * Node writes them out as they come, where from an object it first builds
 * its own map of them. So `Host`, which Node adds only to an object's, is
 * added here as Node adds it: the URL's host (an IPv6 literal in brackets,
 * no default port), unless given.
 */
function rawHeaders(init: HeadersInit | undefined, host: string, method: string, body: string | undefined): string[] {
  const headers = toRecord(init);
  // Node takes such headers as final at once, before it sees the body: the length is ours to give, the body's,
  // or 0 for a method that may have one but has none (a POST), as fetch gives it (Node would send it chunked).
  const length = body !== undefined ? String(Buffer.byteLength(body)) : NO_BODY.has(method) ? undefined : "0";
  const raw: string[] = [];
  for (const name in headers) if (length === undefined || name !== "content-length") raw.push(name, headers[name]!);
  // fetch asks for compressed answers and decodes them; so does this transport.
  if (headers["accept-encoding"] === undefined) raw.push("accept-encoding", "gzip, deflate, br");
  if (length !== undefined) raw.push("content-length", length);
  if (headers.host === undefined) raw.push("host", host);
  return raw;
}

/** The methods Node sends without a length when they carry no body (its `useChunkedEncodingByDefault` is false for them). */
const NO_BODY = new Set(["GET", "HEAD", "DELETE", "OPTIONS", "TRACE", "CONNECT"]);

function toRecord(headers: HeadersInit | undefined): Record<string, string> {
  if (headers === undefined) return {};
  if (Array.isArray(headers)) return Object.fromEntries(headers.map(([name, value]) => [name!.toLowerCase(), value!]));
  // A Headers (the request path's, after an onRequest hook); told apart without touching the global, which loads undici.
  if (typeof (headers as Headers).forEach === "function") return Object.fromEntries(headers as Headers);
  // The request path's own record (lower-case names), only read.
  return headers as Record<string, string>;
}

/** An answer of `node:http`, read as the SDK reads a `Response`. */
class NodeReply implements Reply {
  readonly type: ResponseType = "basic";
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly url: string;
  readonly body: ReplyBody;
  readonly #raw: string[];
  #headers: Headers | undefined;

  constructor(res: http.IncomingMessage, url: string, method: string) {
    this.status = res.statusCode ?? 0;
    // Stryker disable next-line StringLiteral: Node's parser gives every answer a reason phrase, "" when the line has none
    this.statusText = res.statusMessage ?? "";
    this.ok = this.status >= 200 && this.status < 300;
    this.url = url;
    this.#raw = res.rawHeaders;
    this.body = new NodeBody(decoded(res, method, this.status));
  }

  // Built on first use: a JSON call that succeeds never asks for them.
  get headers(): Headers {
    if (!this.#headers) {
      const headers = new Headers();
      const raw = this.#raw;
      for (let i = 0; i < raw.length; i += 2) {
        try {
          headers.append(raw[i]!, raw[i + 1]!);
        } catch {
          // A header fetch would refuse to hold (Node's parser is laxer): left out.
        }
      }
      this.#headers = headers;
    }
    return this.#headers;
  }
}

/**
 * The body as the one reader the SDK takes of it (or a cancel), as a web
 * stream behaves: a cancel destroys the stream (and the socket), and a read
 * pending then ends as `done`.
 */
class NodeBody implements ReplyBody {
  #stream: Readable;
  #cancelled = false;

  constructor(stream: Readable) {
    // Errors reach the reader through its iterator; with no reader yet (a document not read), none may go unhandled.
    stream.on("error", noop);
    this.#stream = stream;
  }

  getReader() {
    // Paused mode and a callback per wait: cheaper than an async iterator.
    const stream = this.#stream;
    let wake: (() => void) | undefined;
    let listening = false;
    let ended = false;
    let failure: unknown;
    const poke = () => {
      const resume = wake;
      wake = undefined;
      resume?.();
    };
    // Listened to only once a read must wait: a JSON answer is most often all in by its first read.
    const listen = () => {
      listening = true;
      stream.on("readable", poke);
      // Stryker disable next-line StringLiteral,BlockStatement,BooleanLiteral: the stream is also 'readable' at its end, and a read after it finds the stream ended
      stream.on("end", () => {
        // Stryker disable next-line BooleanLiteral: as above
        ended = true;
        poke();
      });
      stream.on("error", (error) => {
        failure ??= error;
        poke();
      });
      stream.on("close", () => {
        // Closed before its end without an error of its own: the socket went away mid-body.
        // Stryker disable next-line BooleanLiteral: a read after the end returns done before it looks at a failure
        if (!ended) failure ??= prematureClose();
        poke();
      });
    };
    const read = (): Promise<ReadableStreamReadResult<Uint8Array>> => {
      if (this.#cancelled || ended) return Promise.resolve(DONE);
      const chunk = stream.read() as Buffer | null;
      // A Uint8Array over the Buffer's bytes (no copy), as fetch hands out.
      if (chunk !== null) return Promise.resolve({ done: false, value: new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength) });
      // The whole message in and read: that read set the stream's end in motion. Done a tick later, after
      // 'end' (which hands the socket back to the agent, for the next call), without listening for it.
      if ((stream as http.IncomingMessage).complete || stream.readableEnded) {
        // Stryker disable next-line BooleanLiteral: the next read finds the stream complete again
        ended = true;
        return new Promise((resolve) => process.nextTick(resolve, DONE));
      }
      if (!listening) {
        // Gone before anyone listened: its error (or a premature close) is the read's.
        if (stream.destroyed) failure ??= stream.errored ?? prematureClose();
        listen();
      }
      if (failure !== undefined) return Promise.reject(failure);
      return new Promise<void>((resolve) => (wake = resolve)).then(read);
    };
    return { read, cancel: () => this.cancel() };
  }

  cancel(): Promise<void> {
    this.#cancelled = true;
    this.#stream.destroy();
    return Promise.resolve();
  }
}

const prematureClose = () => Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" });

/**
 * The body decoded as fetch decodes it: the codings of `Content-Encoding`
 * undone last to first (gzip, deflate, br); an unknown coding leaves the
 * body as it came. Truncated compressed data ends the body rather than
 * failing it, as fetch's decoders are set up to.
 */
function decoded(res: http.IncomingMessage, method: string, status: number): Readable {
  const coding = contentEncoding(res.rawHeaders);
  // Stryker disable next-line ConditionalExpression,StringLiteral: an empty body decodes to an empty body (truncated data ends a body): the shortcut spares the decoders
  if (!coding || method === "HEAD" || status === 204 || status === 205 || status === 304) return res;
  const decoders: Transform[] = [];
  const codings = coding.toLowerCase().split(",");
  const z = zlib();
  for (let i = codings.length - 1; i >= 0; i--) {
    const name = codings[i]!.trim();
    const flush = { flush: z.constants.Z_SYNC_FLUSH, finishFlush: z.constants.Z_SYNC_FLUSH };
    if (name === "gzip" || name === "x-gzip") decoders.push(z.createGunzip(flush));
    else if (name === "deflate") decoders.push(z.createInflate(flush));
    else if (name === "br") {
      const op = z.constants.BROTLI_OPERATION_FLUSH;
      decoders.push(z.createBrotliDecompress({ flush: op, finishFlush: op }));
    } else if (name !== "identity" && name !== "") return res;
  }
  if (!decoders.length) return res;
  // Stryker disable next-line StringLiteral: pipeline listens for the errors of every stage
  res.on("error", noop);
  // pipeline destroys every stage when one fails or the last is destroyed (a cancel); the last stage is the body.
  process.getBuiltinModule("node:stream").pipeline([res, ...decoders], noop);
  return decoders[decoders.length - 1]!;
}

/**
 * `Content-Encoding`, several joined as Node joins them, read from the raw
 * pairs: `res.headers` would build every header into an object (Node makes
 * it on first use), which a JSON call never needs.
 */
function contentEncoding(raw: string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    // Stryker disable next-line ConditionalExpression: the length only spares lower-casing the other names
    if (raw[i]!.length === 16 && raw[i]!.toLowerCase() === "content-encoding") value = value === undefined ? raw[i + 1] : `${value}, ${raw[i + 1]}`;
  }
  return value;
}
