// Ending a connection at the app's request: the refresh token is revoked at
// the IdP and the row stored as revoked with its tokens erased, even when the
// IdP call fails (the error is then thrown after the write).
import { FdxReauthorizationRequiredError } from "../errors.js";
import type { Connection } from "../types.js";
import type { Context } from "./context.js";
import { acquire } from "./lease.js";

export async function revoke(ctx: Context, id: string): Promise<void> {
  const { rows } = ctx;
  // After any refresh of this process: its tokens are the ones to revoke.
  await ctx.flights.get(id)?.catch(() => undefined);
  await ctx.writing.get(id);
  let leased: Connection | undefined;
  try {
    leased = (
      await acquire(
        ctx,
        id,
        // Stryker disable next-line ArrowFunction: undefined is as false to acquire()
        () => false,
        () => true,
      )
    ).leased!;
  } catch (error) {
    // Already ended or gone: nothing to revoke (a reauthorization-required row still becomes revoked below).
    if (!(error instanceof FdxReauthorizationRequiredError)) throw error;
    const row = await rows.read(id);
    if (!row || row.status === "revoked") return;
    leased = row;
  }
  ctx.cache.forget(id);
  let failure: unknown;
  if (leased.refreshToken) {
    try {
      await ctx.settings.auth.revoke(leased.refreshToken, { timeoutMs: ctx.tokenTimeoutMs });
    } catch (error) {
      failure = error;
    }
  }
  for (let current: Connection | undefined = leased; current; current = await rows.read(id)) {
    if (current.status === "revoked") break;
    // A lease holder judged dead may have written a newer pair meanwhile: it is revoked too.
    // Stryker disable next-line LogicalOperator,ConditionalExpression: the only extra cases are the leased row's own token (its pair, revoked once below) and an erased row's empty one, which revokeQuietly skips
    if (current !== leased && current.refreshToken && current.refreshToken !== leased.refreshToken) await rows.revokeQuietly(current.refreshToken);
    if (await rows.end(id, current, "revoked")) break;
  }
  if (failure !== undefined) throw failure;
}
