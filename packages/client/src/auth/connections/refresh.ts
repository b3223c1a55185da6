// A refresh of one connection: single flight in this process, under the
// lease across processes; a refresh the IdP refuses ends the connection
// unless the store already holds a newer pair.
import { raceAbort } from "../../internal/abort.js";
import { FdxAuthError, FdxReauthorizationRequiredError } from "../errors.js";
import { peekClaims } from "../id-token.js";
import type { Connection, TokenSet } from "../types.js";
import type { Context } from "./context.js";
import { acquire, release } from "./lease.js";
import { persist } from "./persist.js";

/** The IdP's answers that mean the refresh token is no good any more. */
const END_GRANTS = new Set(["invalid_grant", "invalid_request"]);

/** Joins this process's refresh of `id`, or starts one; `stale` is the bearer the caller found wanting. */
export function flight(ctx: Context, id: string, stale: string, proactive: boolean, signal: AbortSignal | undefined): Promise<Connection> {
  const { flights } = ctx;
  let running = flights.get(id);
  if (!running) {
    running = refreshFlight(ctx, id, stale, proactive).finally(() => flights.delete(id));
    flights.set(id, running);
    // A flight whose callers all gave up (their signals) still settles; nobody else need hear of its failure.
    running.catch(() => undefined);
  }
  return raceAbort(running, signal);
}

/** Refreshes now: a flight that began before this call and left the bearer as it was is followed by a new one. */
export async function refreshNow(ctx: Context, id: string, signal: AbortSignal | undefined): Promise<Connection> {
  const { bearer } = ctx;
  const row = await raceAbort(ctx.rows.load(id), signal);
  // Stryker disable next-line BooleanLiteral: a proactive flight that leaves the token as it was is followed by the waiting one below
  const result = await flight(ctx, id, bearer.of(row), false, signal);
  if (bearer.of(result) === bearer.of(row)) return flight(ctx, id, bearer.of(row), false, signal);
  return result;
}

async function refreshFlight(ctx: Context, id: string, stale: string, proactive: boolean): Promise<Connection> {
  const { bearer } = ctx;
  await ctx.writing.get(id);
  const { row, leased } = await acquire(
    ctx,
    id,
    (r) => bearer.of(r) !== stale && bearer.usable(r, undefined),
    // During a proactive refresh the still-valid token is used instead of waiting for another process.
    (r) => !(proactive && bearer.of(r) === stale && bearer.expiry(r) > Date.now()),
  );
  if (!leased) return row;
  let set: TokenSet;
  try {
    const claims = peekClaims(leased.idToken);
    set = await ctx.settings.auth.refresh(leased.refreshToken, {
      timeoutMs: ctx.tokenTimeoutMs,
      previousClaims: claims && { iss: claims.iss, sub: claims.sub, aud: claims.aud },
      // A refresh answer may leave the id token out (OpenID Connect Core §12.2): the access token is the bearer, so the claims are kept.
      ...(bearer.byAccessToken && claims ? { previous: { idToken: leased.idToken, claims } } : {}),
    });
  } catch (error) {
    if (error instanceof FdxAuthError && error.status !== undefined && END_GRANTS.has(error.error)) return end(ctx, id, leased, error);
    await release(ctx, id, leased);
    throw error;
  }
  return persist(ctx, id, leased, set);
}

/** The IdP refused the refresh token: unless the store holds a newer pair, the connection ends. */
async function end(ctx: Context, id: string, leased: Connection, error: FdxAuthError): Promise<Connection> {
  const { rows } = ctx;
  for (let current = await rows.read(id); ; current = await rows.read(id)) {
    if (!current || current.createdAt !== leased.createdAt || current.status !== "active" || current.refreshToken !== leased.refreshToken) {
      // Another process rotated it meanwhile, or it was replaced, revoked or deleted.
      // Stryker disable next-line ConditionalExpression: release() itself leaves a row leased by another process alone
      if (current?.lease?.owner === ctx.owner) await release(ctx, id, current);
      return rows.load(id);
    }
    if (await rows.end(id, current, "reauthorization_required")) throw new FdxReauthorizationRequiredError(id, error.error, { cause: error });
  }
}
