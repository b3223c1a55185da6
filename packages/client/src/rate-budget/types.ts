import { FdxValidationError, type FdxIssue } from "../core/error.js";
/**
 * Who is asking, sent on statement calls as FDX's `FDX-API-Actor-Type` (`USER` or `BATCH`): `"user"` when an end user
 * waits for the answer, `"batch"` for a job nobody waits on. Providers prioritise by it; some refuse calls without it.
 */
export type ActorType = "user" | "batch";

/**
 * A provider's request budget, shared by every call of one process (`memoryRateBudget`) or every process of an app
 * (`postgresRateBudget` in `@fdxkit/postgres`). A provider limits a client across all of an app's processes, so its
 * web instances and its jobs spend one budget.
 */
export interface RateBudget {
  /** Resolves when a request to this provider may go; user calls before batch ones. Rejects when `signal` aborts. */
  take(providerId: string, actor: ActorType, signal?: AbortSignal): Promise<void>;
  /** A 429 (with its Retry-After, ms) seen by any process pauses that provider for all. */
  pause(providerId: string, ms: number): Promise<void>;
}

/** One provider's budget: a token bucket. */
export interface RateLimit {
  /** Requests per second, sustained. */
  perSecond: number;
  /** Requests that may go at once after a quiet spell. Default `perSecond`. */
  burst?: number;
  /** Tokens batch calls leave for user calls. Default a fifth of `burst`. */
  userReserve?: number;
}

/** A {@link RateLimit} with its defaults filled in. */
export interface ResolvedLimit {
  perSecond: number;
  burst: number;
  userReserve: number;
}

/** Limits per provider, and the limit of providers not named (none: not limited). */
export interface RateLimits {
  limits?: Record<string, RateLimit>;
  default?: RateLimit;
}

function resolveLimit(limit: RateLimit | undefined, path: string, issues: FdxIssue[]): ResolvedLimit | undefined {
  if (limit === undefined) return undefined;
  const positive = (value: unknown, key: string) => {
    const ok = typeof value === "number" && Number.isFinite(value) && value > 0;
    if (!ok) issues.push({ path: `${path}.${key}`, message: "must be a finite number > 0" });
    return ok;
  };
  if (typeof limit !== "object" || limit === null) {
    issues.push({ path, message: "must be { perSecond, burst?, userReserve? }" });
    return undefined;
  }
  const perSecond = limit.perSecond;
  const burst = limit.burst ?? perSecond;
  if (!positive(perSecond, "perSecond") || !positive(burst, "burst")) return undefined;
  if (burst < 1) issues.push({ path: `${path}.burst`, message: "must be at least 1 (one request)" });
  const userReserve = limit.userReserve ?? burst / 5;
  if (!(typeof userReserve === "number" && userReserve >= 0 && userReserve < burst)) {
    issues.push({ path: `${path}.userReserve`, message: "must be a number >= 0 and below burst" });
  }
  return { perSecond, burst, userReserve };
}

/** Checks the limits once, when a budget is made; the lookup then costs one map read. */
export function resolveLimits(options: RateLimits | undefined): (providerId: string) => ResolvedLimit | undefined {
  const issues: FdxIssue[] = [];
  const byProvider = new Map<string, ResolvedLimit>();
  for (const [providerId, limit] of Object.entries(options?.limits ?? {})) {
    const resolved = resolveLimit(limit, `limits.${providerId}`, issues);
    if (resolved) byProvider.set(providerId, resolved);
  }
  const fallback = resolveLimit(options?.default, "default", issues);
  if (issues.length) throw new FdxValidationError(issues);
  return (providerId) => byProvider.get(providerId) ?? fallback;
}

/** Checks `take`'s and `pause`'s arguments the same way for every budget. */
export function checkTake(providerId: unknown, actor: unknown): void {
  const issues: FdxIssue[] = [];
  if (typeof providerId !== "string" || providerId === "") issues.push({ path: "providerId", message: "must be a non-empty string" });
  if (actor !== "user" && actor !== "batch") issues.push({ path: "actor", message: 'must be "user" or "batch"' });
  if (issues.length) throw new FdxValidationError(issues);
}
