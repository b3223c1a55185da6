// The connection manager's side of a consent notification: ending the
// connection that holds the consent, or refreshing it, at most once per
// connection per storm window however often the notice comes.
import type { NotificationTarget } from "../notification.js";
import { STORM_MS } from "./cache.js";
import type { Context } from "./context.js";
import { flight } from "./refresh.js";

export function consentSteps(ctx: Context): Pick<NotificationTarget, "end" | "refreshThrottled"> {
  const { rows } = ctx;
  /** performance.now() of the last refresh a notification asked for, per connection. */
  const notified = new Map<string, number>();
  return {
    /** Ends a connection for a consent notification: its tokens erased, no IdP call, written once whoever else tries. */
    async end(id, consentId, status) {
      for (let current = await rows.read(id); current; current = await rows.read(id)) {
        // Replaced by a new authorization (another consent), or already ended: nothing more to do.
        if (current.consentId !== consentId || current.status === "revoked" || current.status === status || !(await rows.isOwn(current))) return undefined;
        const next = await rows.end(id, current, status);
        if (next) return next;
      }
      return undefined;
    },
    async refreshThrottled(id) {
      const last = notified.get(id);
      const now = performance.now();
      // Stryker disable next-line LogicalOperator,ConditionalExpression: with no earlier refresh, now - undefined is NaN, which is never below the window
      if (last !== undefined && now - last < STORM_MS) return undefined;
      notified.delete(id);
      notified.set(id, now);
      if (notified.size > ctx.settings.cacheSize) notified.delete(notified.keys().next().value!);
      const row = await rows.load(id);
      return flight(ctx, id, ctx.bearer.of(row), false, undefined);
    },
  };
}
