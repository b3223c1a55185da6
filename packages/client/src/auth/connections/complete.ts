// Storing the result of an authorization. The code is spent once exchanged,
// so a refresh token that ends up stored nowhere is revoked at once.
import { sleep } from "../../internal/abort.js";
import type { CallbackChecks } from "../auth-client.js";
import type { Connection, TokenSet } from "../types.js";
import type { Context } from "./context.js";
import { checkId } from "./options.js";
import { fromSet, isStoreFailure } from "./persist.js";

export async function complete(
  ctx: Context,
  idOrName: string | ((tokens: TokenSet) => string),
  callbackUrl: string | URL,
  checks: CallbackChecks,
): Promise<Connection> {
  const { rows } = ctx;
  const { id, set, existing } = await exchange(ctx, idOrName, callbackUrl, checks);
  let base = existing;
  const deadline = performance.now() + ctx.settings.leaseMs;
  for (let delay = ctx.pollMs; ; delay = Math.min(delay * 2, 1000)) {
    try {
      // One clock reading: a new connection's createdAt and updatedAt are the same instant.
      const now = Date.now();
      const next = { ...fromSet(ctx.settings.auth, base, id, set, now), createdAt: now };
      if (await rows.write(id, base?.version ?? 0, next)) {
        ctx.cache.remember(next);
        if (base?.refreshToken) await rows.revokeQuietly(base.refreshToken);
        await rows.changed(next, base?.status);
        return next;
      }
      base = await rows.read(id);
      if (base) await rows.checkOwn(base);
    } catch (error) {
      if (!isStoreFailure(error) || performance.now() >= deadline) {
        // Nothing of this authorization is stored: its refresh token must not outlive it.
        await rows.revokeQuietly(set.refreshToken);
        throw error;
      }
      await sleep(delay);
    }
  }
}

/** Checks the id and the row it names, and exchanges the code, in the order the id allows. */
async function exchange(ctx: Context, idOrName: string | ((tokens: TokenSet) => string), callbackUrl: string | URL, checks: CallbackChecks) {
  const { rows, bearer } = ctx;
  // A stored connection lives by its refresh token, whatever the checks say.
  const exchangeOptions = { timeoutMs: ctx.tokenTimeoutMs, requireRefreshToken: true };
  let id: string;
  let set: TokenSet;
  let existing: Connection | undefined;
  if (typeof idOrName === "function") {
    // The id comes from the tokens (e.g. the subject): known only once the code is spent.
    set = await ctx.settings.auth.exchangeCode(callbackUrl, checks, exchangeOptions);
    try {
      bearer.check(set);
      id = idOrName(set);
      checkId(id);
      existing = await rows.read(id);
      if (existing) await rows.checkOwn(existing);
    } catch (error) {
      await rows.revokeQuietly(set.refreshToken);
      throw error;
    }
  } else {
    id = idOrName;
    checkId(id);
    existing = await rows.read(id);
    // Checked before the code is spent: a row of another IdP or client is not replaced.
    if (existing) await rows.checkOwn(existing);
    set = await ctx.settings.auth.exchangeCode(callbackUrl, checks, exchangeOptions);
    try {
      bearer.check(set);
    } catch (error) {
      await rows.revokeQuietly(set.refreshToken);
      throw error;
    }
  }
  return { id, set, existing };
}
