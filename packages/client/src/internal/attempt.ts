// One HTTP attempt of a call: its headers (and the onRequest hook), sending
// under the attempt's limits, a download's redirects, the onResponse hook,
// and turning the answer into a result, a failure to weigh, or an error.
import { FdxConnectionError, FdxLinkError, FdxResponseError, FdxTimeoutError, toApiError } from "../core/error.js";
import type { ClientHooks } from "../core/options.js";
import { clip, dropCutSecret, redactCause, redactText, secretForms } from "../core/redact.js";
import { abortError, noop, startAttempt, type Attempt } from "./abort.js";
import { BodyTooLarge, readText } from "./body.js";
import { hookEvent, runHook } from "./hooks.js";
import { sendFetch } from "./send-fetch.js";
import type { FetchOnce } from "./redirects.js";
import type { BodyAnswer, Call, Failure, Mode, Outcome, Reply, Transport } from "./types.js";

/** Error bodies are small; a proxy's error page is not worth holding whole. */
const MAX_ERROR_BODY = 64 * 1024;

/** What every attempt of one call shares. */
export interface AttemptInfo {
  attempt: number;
  interactionId: string | undefined;
  timeoutMs: number;
  mode: Mode;
}

/** One attempt under way: what its steps need to send, read and describe it. */
interface Scope {
  t: Transport;
  call: Call;
  info: AttemptInfo;
  limits: Attempt;
  /** Whether a download's redirect was followed: the answer may come from another origin. */
  hopped: boolean;
  /** What no error may show: the token sent (in every form) and the call's own secrets. Only an error pays for the list. */
  secrets: () => readonly string[];
}

/**
 * One HTTP attempt: the answer, or the failure it ended in (for the retry
 * loop to weigh). What no retry can mend — the caller's abort, a redirect, a
 * body too large or not JSON, a throwing hook — is thrown.
 */
export async function attemptOnce(t: Transport, call: Call, base: Record<string, string>, authorization: string, info: AttemptInfo): Promise<Outcome> {
  const signal = call.options?.signal;
  const secrets = () => [...secretForms(authorization.slice(authorization.indexOf(" ") + 1)), ...(call.secrets ?? [])];
  const headers = t.hooks?.onRequest ? await hookedHeaders(t.hooks.onRequest, call, base, authorization, info) : withAuthorization(base, authorization);
  const sender = t.send ?? sendFetch;
  const scope: Scope = { t, call, info, limits: startAttempt(signal, info.timeoutMs, !sender.endsWithAttempt), hopped: false, secrets };
  const started = t.hooks?.onResponse ? performance.now() : 0;
  try {
    const init = requestInit(call, headers);
    const fetchOnce = (to: string, options: RequestInit) => sender(t, to, options, scope.limits);
    let response: Reply;
    try {
      response = await fetchOnce(call.url, init);
      if (info.mode === "stream" && isRedirect(response)) response = await follow(scope, response, init, fetchOnce);
    } catch (cause) {
      if (cause instanceof FdxLinkError) throw cause;
      if (signal?.aborted) throw abortError(signal);
      return lost(scope, cause, "");
    }
    if (t.hooks?.onResponse) await observe(t.hooks.onResponse, scope, response, performance.now() - started);
    if (info.mode !== "stream" && isRedirect(response)) throw redirectRefused(scope, response);
    if (!response.ok) return await failed(scope, response);
    if (info.mode === "stream") return { response, interactionId: info.interactionId, secrets };
    return await answer(scope, response);
  } finally {
    scope.limits.end();
  }
}

/** The call's own header object with this attempt's token put in: no copy per attempt. */
function withAuthorization(base: Record<string, string>, authorization: string): Record<string, string> {
  base.authorization = authorization;
  return base;
}

/** The headers as the onRequest hook left them, with the token set after it, so no hook sees or replaces it. */
async function hookedHeaders(
  hook: NonNullable<ClientHooks["onRequest"]>,
  call: Call,
  base: Record<string, string>,
  authorization: string,
  info: AttemptInfo,
): Promise<Headers> {
  const headers = new Headers(base);
  await runHook("onRequest", hook, { ...hookEvent(call, info.attempt, info.interactionId), headers });
  headers.set("authorization", authorization);
  return headers;
}

const isRedirect = (response: Reply) => response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400);

function requestInit(call: Call, headers: Record<string, string> | Headers): RequestInit {
  return {
    method: call.method,
    headers,
    body: call.body?.text,
    // JSON calls follow no redirect: nothing (a body, the token) goes to a place the caller did not name.
    redirect: "manual",
  };
}

/** Follows a download's redirects by hand, under rules the platform would not keep. */
async function follow(scope: Scope, response: Reply, init: RequestInit, fetchOnce: FetchOnce): Promise<Reply> {
  const { call, limits } = scope;
  // Loaded on a download's first redirect only: browsers never see one (they follow it, or hide it).
  const { followRedirects } = await limits.race(import("./redirects.js"));
  const refuse = (location: string, why: string) => {
    const s = scope.secrets();
    return new FdxLinkError(redactText(`Refusing the redirect of ${call.url} to ${JSON.stringify(clip(location, s))}: ${why}`, s), redactText(location, s));
  };
  scope.hopped = true;
  return limits.race(followRedirects(response, call.url, init, fetchOnce, refuse));
}

/** The failure of an attempt that timed out or whose connection failed (`during`: "" for the wait for headers). */
function lost(scope: Scope, cause: unknown, during: string): Failure {
  const { method, url } = scope.call;
  const { interactionId, timeoutMs } = scope.info;
  const s = scope.secrets();
  // The URL too: a same-origin page link may have carried the token.
  return {
    error: scope.limits.timedOut
      ? new FdxTimeoutError(redactText(`${method} ${url} timed out after ${timeoutMs} ms${during}`, s), { interactionId })
      : new FdxConnectionError(redactText(`${method} ${url} failed${during}: ${describe(cause)}`, s), { cause: redactCause(cause, s), interactionId }),
  };
}

/** Runs the onResponse hook; if it throws, the answer's body is let go before the error surfaces. */
async function observe(hook: NonNullable<ClientHooks["onResponse"]>, scope: Scope, response: Reply, durationMs: number): Promise<void> {
  const { call, info } = scope;
  const event = { ...hookEvent(call, info.attempt, info.interactionId), status: response.status, headers: response.headers, durationMs };
  await runHook("onResponse", hook, event).catch((error: unknown) => {
    void response.body?.cancel().catch(noop);
    throw error;
  });
}

/** The error for a redirect answering a call that is not a download. */
function redirectRefused(scope: Scope, response: Reply): FdxLinkError {
  const { method, url } = scope.call;
  void response.body?.cancel().catch(noop);
  const location = response.headers.get("location");
  const s = scope.secrets();
  const message = `${method} ${url} answered ${response.status || "a redirect"}: calls that answer JSON follow no redirect`;
  return new FdxLinkError(redactText(message, s), redactText(location ?? url, s));
}

/** The failure of a non-2xx answer: its error, read from a bounded part of its body, and what the retry loop weighs. */
async function failed(scope: Scope, response: Reply): Promise<Failure> {
  const { call, limits, info } = scope;
  const { method, url } = call;
  const { status } = response;
  let text = "";
  const s = scope.secrets();
  try {
    text = await limits.race(readText(response, MAX_ERROR_BODY, (cut) => dropCutSecret(cut, s)));
  } catch {
    const signal = call.options?.signal;
    if (signal?.aborted) throw abortError(signal);
    // A body cut off mid-error still yields the status-based error.
  }
  const { error, retryAfterMs } = toApiError(status, response.statusText, response.headers, text, {
    method,
    url,
    interactionId: info.interactionId,
    secrets: s,
  });
  // A 401 from where a download was redirected (a document host) says nothing of the user's token.
  return { error, status, retryAfterMs, sameOrigin: !scope.hopped || sameOrigin(response.url, url) };
}

/** A 2xx answer read whole, under `maxResponseBytes`, and parsed in JSON mode. */
async function answer(scope: Scope, response: Reply): Promise<BodyAnswer | Failure> {
  const { t, call, limits, info, secrets } = scope;
  const { status } = response;
  const { interactionId } = info;
  let text: string;
  try {
    text = await limits.race(readText(response, t.maxResponseBytes));
  } catch (cause) {
    const signal = call.options?.signal;
    if (signal?.aborted) throw abortError(signal);
    if (cause instanceof BodyTooLarge) {
      throw new FdxResponseError(status, [{ path: "", message: `response body is larger than maxResponseBytes (${t.maxResponseBytes} bytes)` }], {
        interactionId,
      });
    }
    return lost(scope, cause, " while reading the response");
  }
  let data: unknown;
  if (info.mode === "json" && text !== "") {
    try {
      data = JSON.parse(text);
    } catch {
      throw notJson(text, status, secrets(), interactionId);
    }
  }
  return { status, response, text, data, interactionId, secrets };
}

// An unknown URL ("", a custom fetch's own Response) does not parse: not the same origin.
function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
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
