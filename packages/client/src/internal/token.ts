// The token step: the bearer token each attempt sends, and the one repeat
// after a 401 with a fresh token from the token function.
import { FdxError, FdxValidationError } from "../core/error.js";
import type { TokenContext } from "../core/options.js";
import { secretForms } from "../core/redact.js";
import { raceAbort } from "./abort.js";
import { isHeaderValue } from "./headers.js";
import type { Call, Outcome, TokenMemo, Transport } from "./types.js";

/** Sends an attempt of `call` with the `Authorization` header value given. */
export type SendWith = (call: Call, authorization: string) => Promise<Outcome>;

/**
 * Wraps sending with the client's token, for every attempt of one call.
 * Each attempt asks a token function again (a refreshing provider works). A
 * 401 from the call's own origin is answered once per call with a fresh
 * token, sent at once: the 401 was not processed, so even a POST repeats,
 * and the repeat is not counted among the retries. A call with its own
 * `authorization` (the token endpoint) is sent as it is.
 */
export function withToken(t: Transport, call: Call, signal: AbortSignal | undefined): (send: SendWith) => Promise<Outcome> {
  const own = call.authorization;
  if (own !== undefined) return (send) => send(call, own);
  const token = t.token;
  // A string token is checked without a turn of the event loop, and a 401 has no fresher one to try.
  if (typeof token !== "function") return (send) => send(call, `Bearer ${checkToken(token, t.tokenMemo)}`);
  let renewed = false;
  // Tokens this call sent before the current one: a server may echo a refused token in a later answer.
  let earlier: string[] | undefined;
  let sending = call;
  let last: string | undefined;
  const use = (fresh: string, previous: string | undefined) => {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: an undefined previous has no secret forms and a token listed twice redacts nothing more; the checks only keep the list short
    if (previous !== undefined && previous !== fresh && !earlier?.includes(previous)) {
      (earlier ??= []).push(previous);
      sending = { ...call, secrets: [...(call.secrets ?? []), ...earlier.flatMap(secretForms)] };
    }
    return fresh;
  };
  return async (send) => {
    let current = use(checkToken(await callToken(token, undefined, signal), t.tokenMemo), last);
    let outcome = await send(sending, `Bearer ${current}`);
    // A 401 from another origin (a document host a download was redirected to) says nothing of the user's token.
    if (!renewed && "error" in outcome && outcome.status === 401 && outcome.sameOrigin) {
      renewed = true;
      const next = checkToken(await callToken(token, current, signal), t.tokenMemo);
      if (next !== current) {
        current = use(next, current);
        outcome = await send(sending, `Bearer ${current}`);
      }
    }
    last = current;
    return outcome;
  };
}

async function callToken(
  token: (context: TokenContext) => string | Promise<string>,
  rejected: string | undefined,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  try {
    // The token function is not covered by the timeout, but the caller can still give up on it.
    return await raceAbort(Promise.resolve(token({ rejected, signal })), signal);
  } catch (error) {
    throw error instanceof FdxError ? error : new FdxError("The token function failed (see cause)", { cause: error, code: "token_failed" });
  }
}

/** The token as a header value; `memo` holds the client's last token that passed, so it is not scanned again. */
function checkToken(value: unknown, memo: TokenMemo | undefined): string {
  if (typeof value !== "string" || value === "") {
    throw new FdxValidationError([{ path: "token", message: "the token function must return a non-empty string" }]);
  }
  // Stryker disable next-line ConditionalExpression: scanning a token that passed before gives the same verdict; the cache only saves the scan
  if (value !== memo?.last && !isHeaderValue(value)) throw new FdxValidationError([{ path: "token", message: "is not a valid HTTP header value" }]);
  if (memo) memo.last = value;
  return value;
}
