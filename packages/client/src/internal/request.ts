// The one request function: every call, every page and every download goes
// through `request`. It settles the call's options and headers, then runs
// the retry loop: each attempt takes its turn of the rate budget, is sent
// with the client's token (renewed once after a 401), and either answers or
// fails; a failure is retried or thrown.
import { FdxValidationError, type FdxIssue } from "../core/error.js";
import type { RequestOptions } from "../core/options.js";
import { abortError, sleep } from "./abort.js";
import { attemptOnce, type AttemptInfo } from "./attempt.js";
import { DEFAULT_PAUSE_MS } from "./budget.js";
import { checkInteger } from "./checks.js";
import { buildHeaders, headerValue } from "./headers.js";
import { hookEvent, runHook } from "./hooks.js";
import { backoffMs, shouldRetry } from "./retry.js";
import { withToken, type SendWith } from "./token.js";
import type { BodyAnswer, Call, Mode, StreamAnswer, Transport } from "./types.js";
import { uuid } from "./uuid.js";

const EMPTY: RequestOptions = {};

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
  const maxRetries = options.maxRetries ?? t.maxRetries;
  const given = options.interactionId ?? headerValue(options.headers, "x-fapi-interaction-id");
  const interactionId = given ?? (t.interactionIds ? uuid() : undefined);
  // Stryker disable next-line ConditionalExpression: checking a generated id too gives the same verdict (a UUID always fits)
  const headers = buildHeaders(t, call, options, interactionId, given !== undefined);
  const info: AttemptInfo = { attempt: 1, interactionId, timeoutMs: options.timeoutMs ?? t.timeoutMs, mode };
  // Every attempt waits for its provider's turn before its timeout starts; a call with no actor type counts as a user's.
  const budget = call.providerId !== undefined ? t.rateBudget : undefined;
  const send: SendWith = budget
    ? async (sending, authorization) => {
        await budget.take(call.providerId!, options.actorType ?? t.actorType ?? "user", signal);
        return attemptOnce(t, sending, headers, authorization, info);
      }
    : (sending, authorization) => attemptOnce(t, sending, headers, authorization, info);
  const sendWithToken = withToken(t, call, signal);
  for (; ; info.attempt++) {
    if (signal?.aborted) throw abortError(signal);
    const outcome = await sendWithToken(send);
    if (!("error" in outcome)) return outcome;
    const { error, status, retryAfterMs } = outcome;
    // The provider's own 429 holds it back for everyone sharing the budget; a document host it redirected to is another's limit.
    if (budget && status === 429 && outcome.sameOrigin) await budget.pause(call.providerId!, retryAfterMs ?? DEFAULT_PAUSE_MS);
    if (!shouldRetry(call.method, info.attempt, maxRetries, status, retryAfterMs)) throw error;
    const delayMs = retryAfterMs ?? backoffMs(info.attempt - 1);
    if (t.hooks?.onRetry) await runHook("onRetry", t.hooks.onRetry, { ...hookEvent(call, info.attempt, interactionId), error, delayMs });
    await sleep(delayMs, signal);
  }
}

/**
 * `timeoutMs` and `maxRetries`, of the client (added to its other issues) or
 * of one call: integers >= 0 where given. One check for both places.
 */
export function retryTimeoutIssues(options: { timeoutMs?: unknown; maxRetries?: unknown }, issues: FdxIssue[] = []): FdxIssue[] {
  for (const path of ["timeoutMs", "maxRetries"] as const) {
    if (options[path] !== undefined) checkInteger(options[path], 0, path, issues);
  }
  return issues;
}
