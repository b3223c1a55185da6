// The token function's path: from memory when the bearer is still good, from
// the store when another process may have refreshed it, and through a refresh
// otherwise, with the storm bounds holding back refreshes that would repeat.
import { FdxAbortError } from "../../core/error.js";
import type { TokenContext } from "../../core/options.js";
import { raceAbort } from "../../internal/abort.js";
import { FdxReauthorizationRequiredError } from "../errors.js";
import { STORM_MS } from "./cache.js";
import type { Context } from "./context.js";
import { flight } from "./refresh.js";

export async function token(ctx: Context, id: string, context: TokenContext | undefined): Promise<string> {
  const { bearer, cache } = ctx;
  const rejected = context?.rejected;
  const signal = context?.signal;
  if (signal?.aborted) throw new FdxAbortError(undefined, { cause: signal.reason });
  let row = cache.fresh(id);
  if (row && bearer.usable(row, rejected)) return bearer.of(row);
  // A rejection, expiry or refresh time: what another process stored may already be newer.
  row = await raceAbort(ctx.rows.load(id), signal);
  if (bearer.usable(row, rejected)) return bearer.of(row);
  const storm = cache.stormOf(id);
  // A token of unknown expiry counts as expired once rejected: the storm bound is for tokens known to be valid.
  const unexpired = !bearer.unknownExpiry(row) && bearer.expiry(row) > Date.now();
  // Stryker disable next-line ConditionalExpression: a row's bearer is a string, never undefined
  const rejection = rejected !== undefined && rejected === bearer.of(row);
  const proactive = !rejection && unexpired;
  // Callers that arrive while a refresh runs join it; the storm bounds only hold back a new one.
  if (!ctx.flights.has(id)) {
    const now = performance.now();
    const held = rejection && unexpired ? storm.rejectedAt : proactive ? storm.proactiveFailedAt : undefined;
    // Stryker disable next-line ConditionalExpression: with nothing held, now - undefined is NaN, which is never below the window
    if (held !== undefined && now - held < STORM_MS) {
      // A refresh that ended since this caller read the store has left its pair in memory.
      const latest = cache.fresh(id);
      // The rejected token itself, for a rejection: the 401 reaches the caller rather than another refresh so soon.
      return bearer.handOut(latest && bearer.usable(latest, rejected) ? latest : row);
    }
    if (rejection && unexpired) storm.rejectedAt = now;
  }
  try {
    return bearer.handOut(await flight(ctx, id, bearer.of(row), proactive, signal));
  } catch (error) {
    if (proactive && !(error instanceof FdxReauthorizationRequiredError) && !(error instanceof FdxAbortError) && bearer.expiry(row) > Date.now()) {
      storm.proactiveFailedAt = performance.now();
      return bearer.handOut(row);
    }
    throw error;
  }
}
