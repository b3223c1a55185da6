// The one request function: every call, every page and every download goes
// through `request` (DESIGN.md §9). It owns the headers and auth, the
// interaction id, the hooks, each attempt's limits (timeout, the caller's
// signal, the body cap), the retry loop and the error mapping, and hands back
// the body text or the response stream.
import {
  FdxConnectionError,
  FdxError,
  FdxLinkError,
  FdxResponseError,
  FdxTimeoutError,
  FdxValidationError,
  toApiError,
  type FdxIssue,
} from "../core/error.js";
import { clip, dropCutSecret, redactCause, redactText, secretForms } from "../core/redact.js";
import type { HookEventBase, RequestOptions, TokenContext } from "../core/options.js";
import { abortError, noop, raceAbort, sleep, startAttempt } from "./abort.js";
import { ACTOR_HEADER, checkActorType } from "./actor.js";
import { DEFAULT_PAUSE_MS } from "./budget.js";
import { BodyTooLarge, readText } from "./body.js";
import { MAX_RETRY_AFTER_MS, backoffMs, isRetryable } from "./retry.js";
import { sendFetch } from "./send-fetch.js";
import type { BodyAnswer, Call, Mode, Reply, StreamAnswer, TokenMemo, Transport } from "./types.js";
import { uuid } from "./uuid.js";

/** Error bodies are small; a proxy's error page is not worth holding whole. */
const MAX_ERROR_BODY = 64 * 1024;
const EMPTY: RequestOptions = {};
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Platforms refuse CR, LF, NUL and anything beyond Latin-1 — with a TypeError quoting the value, token and all.
const BAD_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** Whether the platform takes `value` as a header value (checked before sending, so no error quotes it). */
export const isHeaderValue = (value: unknown): value is string => typeof value === "string" && !BAD_HEADER_VALUE.test(value);

interface Failure {
  error: FdxError;
  /** Absent when no response arrived. */
  status?: number;
  retryAfterMs?: number;
  /** Whether the answer came from the URL's own origin (not from where a download was redirected). */
  sameOrigin?: boolean;
}

/** Sends a call and reads its 2xx body (as JSON: a body that is not is an `FdxResponseError`). */
export function request(t: Transport, call: Call, mode: "json" | "text"): Promise<BodyAnswer>;
/** Sends a call and hands back its 2xx response, body unread (redirects followed; the timeout ends with the headers). */
export function request(t: Transport, call: Call, mode: "stream"): Promise<StreamAnswer>;
export async function request(t: Transport, call: Call, mode: Mode): Promise<BodyAnswer | StreamAnswer> {
  const options = call.options ?? EMPTY;
  const { signal } = options;
  // Stryker disable next-line ConditionalExpression: with neither given the check finds nothing; the guard only spares the call
  if (options.timeoutMs !== undefined || options.maxRetries !== undefined) {
    const issues = retryTimeoutIssues(options);
    if (issues.length) throw new FdxValidationError(issues);
  }
  const timeoutMs = options.timeoutMs ?? t.timeoutMs;
  const maxRetries = options.maxRetries ?? t.maxRetries;
  const given = options.interactionId ?? headerValue(options.headers, "x-fapi-interaction-id");
  const interactionId = given ?? (t.interactionIds ? uuid() : undefined);
  // Stryker disable next-line ConditionalExpression: checking a generated id too gives the same verdict (a UUID always fits)
  const headers = callHeaders(t, call, options, interactionId, given !== undefined);

  // One repeat per call after a 401 with a fresh token from the token function (not counted in maxRetries).
  let renewed = false;
  // Tokens this call sent before the current one: a server may echo a refused token in a later answer.
  let earlier: string[] | undefined;
  let sending = call;
  const use = (token: string, previous: string | undefined) => {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: an undefined previous has no secret forms and a token listed twice redacts nothing more; the checks only keep the list short
    if (previous !== undefined && previous !== token && !earlier?.includes(previous)) {
      (earlier ??= []).push(previous);
      sending = { ...call, secrets: [...(call.secrets ?? []), ...earlier.flatMap(secretForms)] };
    }
    return token;
  };
  let last: string | undefined;
  // Every attempt waits for its provider's turn before its timeout starts; a call with no actor type counts as a user's.
  const budget = call.providerId !== undefined ? t.rateBudget : undefined;
  const turn = budget && (() => budget.take(call.providerId!, options.actorType ?? t.actorType ?? "user", signal));
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw abortError(signal);
    // A string token is checked without a turn of the event loop; only a function is awaited.
    let token = call.authorization === undefined ? use(typeof t.token === "function" ? checkToken(await callToken(t.token, undefined, signal), t.tokenMemo) : checkToken(t.token, t.tokenMemo), last) : "";
    if (turn) await turn();
    let outcome = await send(t, sending, headers, call.authorization ?? `Bearer ${token}`, { attempt, interactionId, timeoutMs, mode });
    // A 401 was not processed, so even a POST is repeated; a 401 from another origin (a document host
    // a download was redirected to) says nothing of the user's token.
    if (!renewed && "error" in outcome && outcome.status === 401 && typeof t.token === "function" && call.authorization === undefined && outcome.sameOrigin) {
      renewed = true;
      const next = checkToken(await callToken(t.token, token, signal), t.tokenMemo);
      if (next !== token) {
        token = use(next, token);
        if (turn) await turn();
        outcome = await send(t, sending, headers, `Bearer ${token}`, { attempt, interactionId, timeoutMs, mode });
      }
    }
    last = token;
    if (!("error" in outcome)) return outcome;
    const { error, status, retryAfterMs } = outcome;
    // The provider's own 429 holds it back for everyone sharing the budget; a document host it redirected to is another's limit.
    if (budget && status === 429 && outcome.sameOrigin) await budget.pause(call.providerId!, retryAfterMs ?? DEFAULT_PAUSE_MS);
    // The server's Retry-After wins over the backoff; asking for longer than MAX_RETRY_AFTER_MS surfaces the error.
    if (attempt > maxRetries || !isRetryable(call.method, status) || (retryAfterMs ?? 0) > MAX_RETRY_AFTER_MS) throw error;
    const delayMs = retryAfterMs ?? backoffMs(attempt - 1);
    if (t.hooks?.onRetry) await runHook("onRetry", t.hooks.onRetry, { ...event(call, attempt, interactionId), error, delayMs });
    await sleep(delayMs, signal);
  }
}

/**
 * `timeoutMs` and `maxRetries`, of the client (added to its other issues) or
 * of one call: integers >= 0 where given. One check for both places.
 */
export function retryTimeoutIssues(options: { timeoutMs?: unknown; maxRetries?: unknown }, issues: FdxIssue[] = []): FdxIssue[] {
  for (const path of ["timeoutMs", "maxRetries"] as const) {
    const value = options[path];
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0)) issues.push({ path, message: "must be an integer >= 0" });
  }
  return issues;
}

/**
 * The headers every attempt of a call sends, but `authorization`: lower-case
 * names, so a caller's `accept` replaces ours instead of joining it. Checked
 * once, here: a value the platform refuses would otherwise surface as a
 * TypeError quoting it.
 */
function callHeaders(t: Transport, call: Call, options: RequestOptions, interactionId: string | undefined, given: boolean): Record<string, string> {
  const headers: Record<string, string> = { accept: call.accept ?? "application/json" };
  if (call.body) headers["content-type"] = call.body.type;
  const issues: FdxIssue[] = [];
  // The call's actor type (checked on every call, so a bad one is refused wherever it is given) or the
  // client's; sent on product calls only, and before the call's headers, which may name their own.
  const actorType = options.actorType !== undefined ? options.actorType : t.actorType;
  if (checkActorType(actorType, issues) && actorType && call.product) headers[ACTOR_HEADER] = actorType.toUpperCase();
  if (options.providerId !== undefined && (typeof options.providerId !== "string" || options.providerId === "")) issues.push({ path: "providerId", message: "must be a non-empty string" });
  const extra = options.headers;
  if (extra) {
    for (const [name, value] of Object.entries(extra)) {
      if (!HEADER_NAME.test(name) || !isHeaderValue(value)) {
        issues.push({ path: `headers.${name}`, message: "is not a valid HTTP header" });
      } else if (name.toLowerCase() !== "authorization") headers[name.toLowerCase()] = value;
    }
  }
  if (interactionId !== undefined) {
    // Only the caller's is checked: a generated UUID always fits.
    if (given && (interactionId === "" || !isHeaderValue(interactionId))) {
      issues.push({ path: "interactionId", message: "must be a non-empty string valid in an HTTP header" });
    } else headers["x-fapi-interaction-id"] = interactionId;
  }
  if (issues.length) throw new FdxValidationError(issues);
  return headers;
}

function headerValue(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (headers) for (const key in headers) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}

async function callToken(token: (context: TokenContext) => string | Promise<string>, rejected: string | undefined, signal: AbortSignal | undefined): Promise<unknown> {
  try {
    // The token function is not covered by the timeout, but the caller can still give up on it.
    return await raceAbort(Promise.resolve(token({ rejected, signal })), signal);
  } catch (error) {
    throw error instanceof FdxError ? error : new FdxError("The token function failed (see cause)", { cause: error, code: "token_failed" });
  }
}

function checkToken(value: unknown, memo: TokenMemo | undefined): string {
  if (typeof value !== "string" || value === "") {
    throw new FdxValidationError([{ path: "token", message: "the token function must return a non-empty string" }]);
  }
  // Stryker disable next-line ConditionalExpression: scanning a token that passed before gives the same verdict; the cache only saves the scan
  if (value !== memo?.last && !isHeaderValue(value)) throw new FdxValidationError([{ path: "token", message: "is not a valid HTTP header value" }]);
  if (memo) memo.last = value;
  return value;
}

interface AttemptInfo {
  attempt: number;
  interactionId: string | undefined;
  timeoutMs: number;
  mode: Mode;
}

/**
 * One HTTP attempt: the answer, or the failure it ended in (for the retry
 * loop to weigh). What no retry can mend — the caller's abort, a redirect, a
 * body too large or not JSON, a throwing hook — is thrown.
 */
async function send(
  t: Transport,
  call: Call,
  base: Record<string, string>,
  authorization: string,
  info: AttemptInfo,
): Promise<BodyAnswer | StreamAnswer | Failure> {
  const { method, url } = call;
  const { attempt, interactionId, timeoutMs, mode } = info;
  const stream = mode === "stream";
  const signal = call.options?.signal;
  const hooks = t.hooks;
  // Only an error pays for the list of what to redact.
  const secrets = () => [...secretForms(authorization.slice(authorization.indexOf(" ") + 1)), ...(call.secrets ?? [])];

  let headers: Record<string, string> | Headers;
  if (hooks?.onRequest) {
    headers = new Headers(base);
    await runHook("onRequest", hooks.onRequest, { ...event(call, attempt, interactionId), headers });
    // Set after the hook, so no hook sees or replaces it.
    headers.set("authorization", authorization);
  } else {
    // The call's own object (callHeaders made it): each attempt puts its token there instead of copying it (~2 µs a call).
    base.authorization = authorization;
    headers = base;
  }

  const sender = t.send ?? sendFetch;
  const limits = startAttempt(signal, timeoutMs, !sender.endsWithAttempt);
  // The attempt timed out or its connection failed (`during`: "" for the wait for headers), for the retry loop to weigh.
  const lost = (cause: unknown, during: string): Failure => {
    const s = secrets();
    // The URL too: a same-origin page link may have carried the token.
    return {
      error: limits.timedOut
        ? new FdxTimeoutError(redactText(`${method} ${url} timed out after ${timeoutMs} ms${during}`, s), { interactionId })
        : new FdxConnectionError(redactText(`${method} ${url} failed${during}: ${describe(cause)}`, s), { cause: redactCause(cause, s), interactionId }),
    };
  };
  const started = hooks?.onResponse ? performance.now() : 0;
  let response: Reply;
  let hopped = false;
  try {
    try {
      const init: RequestInit = {
        method,
        headers,
        body: call.body?.text,
        // JSON calls follow no redirect: nothing (a body, the token) goes to a place the caller did not name.
        // Downloads follow them by hand (redirects.ts), under the limits the platform would not keep.
        redirect: "manual",
      };
      const fetchOnce = (to: string, options: RequestInit) => sender(t, to, options, limits);
      response = await fetchOnce(url, init);
      if (stream && (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400))) {
        // Loaded on a download's first redirect only: browsers never see one (they follow it, or hide it).
        const { followRedirects } = await limits.race(import("./redirects.js"));
        const refuse = (location: string, why: string) => {
          const s = secrets();
          return new FdxLinkError(redactText(`Refusing the redirect of ${url} to ${JSON.stringify(clip(location, s))}: ${why}`, s), redactText(location, s));
        };
        response = await limits.race(followRedirects(response, url, init, fetchOnce, refuse));
        hopped = true;
      }
    } catch (cause) {
      if (cause instanceof FdxLinkError) throw cause;
      if (signal?.aborted) throw abortError(signal);
      return lost(cause, "");
    }
    const { status } = response;
    if (hooks?.onResponse) {
      const durationMs = performance.now() - started;
      await runHook("onResponse", hooks.onResponse, { ...event(call, attempt, interactionId), status, headers: response.headers, durationMs }).catch(
        (error: unknown) => {
          void response.body?.cancel().catch(noop);
          throw error;
        },
      );
    }
    if (!stream && (response.type === "opaqueredirect" || (status >= 300 && status < 400))) {
      void response.body?.cancel().catch(noop);
      const location = response.headers.get("location");
      const s = secrets();
      const message = `${method} ${url} answered ${status || "a redirect"}: calls that answer JSON follow no redirect`;
      throw new FdxLinkError(redactText(message, s), redactText(location ?? url, s));
    }
    if (!response.ok) {
      let text = "";
      const s = secrets();
      try {
        text = await limits.race(readText(response, MAX_ERROR_BODY, (cut) => dropCutSecret(cut, s)));
      } catch {
        if (signal?.aborted) throw abortError(signal);
        // A body cut off mid-error still yields the status-based error.
      }
      const { error, retryAfterMs } = toApiError(status, response.statusText, response.headers, text, { method, url, interactionId, secrets: s });
      // A 401 from where a download was redirected (a document host) says nothing of the user's token.
      return { error, status, retryAfterMs, sameOrigin: !hopped || sameOrigin(response.url, url) };
    }
    if (stream) return { response, interactionId, secrets };
    let text: string;
    try {
      text = await limits.race(readText(response, t.maxResponseBytes));
    } catch (cause) {
      if (signal?.aborted) throw abortError(signal);
      if (cause instanceof BodyTooLarge) {
        throw new FdxResponseError(status, [{ path: "", message: `response body is larger than maxResponseBytes (${t.maxResponseBytes} bytes)` }], { interactionId });
      }
      return lost(cause, " while reading the response");
    }
    let data: unknown;
    if (mode === "json" && text !== "") {
      try {
        data = JSON.parse(text);
      } catch {
        throw notJson(text, status, secrets(), interactionId);
      }
    }
    return {
      status,
      response,
      text,
      data,
      interactionId,
      secrets,
    };
  } finally {
    limits.end();
  }
}

// An unknown URL ("", a custom fetch's own Response) does not parse: not the same origin.
function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

const event = (call: Call, attempt: number, interactionId: string | undefined): HookEventBase => ({
  method: call.method,
  url: call.url,
  attempt,
  interactionId,
});

async function runHook<E>(name: string, hook: (event: E) => void | Promise<void>, payload: E): Promise<void> {
  try {
    await hook(payload);
  } catch (error) {
    throw new FdxError(`The ${name} hook threw (see cause)`, { cause: error, code: "hook_failed" });
  }
}

// The platform error's own message names the cause (ECONNREFUSED, reset); the caller redacts it, as a custom fetch may quote headers.
function describe(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const code = (cause.cause as { code?: unknown } | null | undefined)?.code;
  return code === undefined ? cause.message : `${cause.message} (${String(code)})`;
}

/**
 * The error for a 2xx body that is not JSON. The parser quotes the text, cut
 * to a few characters around the fault, and a cut may split the token: so the
 * text is redacted whole and parsed again, and only that parser's message
 * (and error) are kept.
 */
function notJson(text: string, status: number, secrets: readonly string[], interactionId: string | undefined): FdxResponseError {
  let cause: unknown;
  try {
    JSON.parse(redactText(text, secrets));
  } catch (error) {
    cause = error;
  }
  const why = cause instanceof Error ? ` (${clip(cause.message, secrets)})` : "";
  return new FdxResponseError(status, [{ path: "", message: `response body is not valid JSON${why}` }], { cause, interactionId });
}
