// Storing the tokens an authorization or a refresh brought. Once the IdP has
// answered a refresh, the old refresh token is spent, so the new pair is
// never dropped: a failing store is retried while callers use the pair from
// memory.
import { sleep } from "../../internal/abort.js";
import type { AuthClient } from "../auth-client.js";
import { FdxConnectionStoreError, FdxReauthorizationRequiredError } from "../errors.js";
import type { Connection, TokenSet } from "../types.js";
import type { Context } from "./context.js";

/** The active row that holds `set`, written over `base` (or new). */
export function fromSet(auth: AuthClient, base: Connection | undefined, id: string, set: TokenSet, now: number): Connection {
  return {
    id,
    status: "active",
    idToken: set.idToken,
    refreshToken: set.refreshToken,
    expiresAt: set.expiresAt,
    accessToken: set.accessToken,
    accessTokenExpiresAt: set.accessTokenExpiresAt,
    accounts: [...set.accounts],
    subject: set.subject,
    connector: set.connector,
    consentId: set.consentId,
    issuer: String(set.claims.iss),
    clientId: auth.clientId,
    createdAt: base?.createdAt ?? now,
    updatedAt: now,
    version: (base?.version ?? 0) + 1,
    lease: undefined,
  };
}

/** Whether an error is the store failing (worth a retry), rather than a refusal. */
export function isStoreFailure(error: unknown): boolean {
  return error instanceof FdxConnectionStoreError && error.reason === "store_error";
}

/**
 * Writes a refreshed pair onto `base` (the version this process leased);
 * on a lost compare-and-set, onto the current version — unless the row was
 * revoked, deleted or replaced, when the new refresh token is revoked.
 */
async function persistOnce(ctx: Context, id: string, base: Connection, set: TokenSet): Promise<Connection> {
  const { rows, cache } = ctx;
  for (;;) {
    const next = fromSet(ctx.settings.auth, base, id, set, Date.now());
    if (await rows.write(id, base.version, next)) {
      cache.remember(next);
      await rows.changed(next, base.status);
      return next;
    }
    const current = await rows.read(id);
    if (!current || current.status === "revoked" || current.createdAt !== base.createdAt || !(await rows.isOwn(current))) {
      await rows.revokeQuietly(set.refreshToken);
      if (current?.status === "active" && (await rows.isOwn(current))) {
        cache.remember(current);
        return current;
      }
      cache.forget(id);
      throw new FdxReauthorizationRequiredError(id, current ? current.status : "not_found");
    }
    base = current;
  }
}

/** Stores a refreshed pair; when the store fails, hands the pair back from memory and retries the write for up to leaseMs. */
export async function persist(ctx: Context, id: string, base: Connection, set: TokenSet): Promise<Connection> {
  try {
    return await persistOnce(ctx, id, base, set);
  } catch (error) {
    if (!isStoreFailure(error)) throw error;
  }
  // The store failed: callers use the new pair from memory while the write is retried for up to leaseMs.
  const pending = fromSet(ctx.settings.auth, base, id, set, Date.now());
  ctx.cache.remember(pending);
  const deadline = performance.now() + ctx.settings.leaseMs;
  const attempts = (async () => {
    for (let delay = ctx.pollMs; performance.now() < deadline; delay = Math.min(delay * 2, 1000)) {
      await sleep(Math.min(delay, Math.max(0, deadline - performance.now())));
      try {
        await persistOnce(ctx, id, base, set);
        return;
      } catch (error) {
        if (!isStoreFailure(error)) return;
      }
    }
  })();
  // Stryker disable next-line ArrowFunction: a settled write left in the map is awaited again at no cost but a tick
  const retry = attempts.finally(() => ctx.writing.delete(id));
  ctx.writing.set(id, retry);
  return pending;
}
