import type { FdxIssue } from "../core/error.js";
import type { RateBudget } from "../rate-budget/types.js";

/** A 429 without Retry-After pauses the provider this long. */
export const DEFAULT_PAUSE_MS = 1000;

/** Whether `value` is usable as `rateBudget` (absent, or something with `take` and `pause`); else its issue goes to `issues`. */
export function checkRateBudget(value: unknown, issues: FdxIssue[]): value is RateBudget | undefined {
  if (value === undefined) return true;
  const budget = value as Partial<RateBudget> | null;
  if (typeof budget?.take === "function" && typeof budget.pause === "function") return true;
  issues.push({ path: "rateBudget", message: "must be a RateBudget (take and pause), e.g. memoryRateBudget()" });
  return false;
}

/**
 * The provider a statement URL belongs to: the segment after the version in
 * `{productsUrl}/statements/{version}/{providerId}/…`, or undefined for a
 * URL of another shape (the caller's `providerId` option then names it).
 */
export function providerOf(productsUrl: string, url: string): string | undefined {
  const base = productsUrl.endsWith("/") ? productsUrl : `${productsUrl}/`;
  if (!url.startsWith(`${base}statements/`)) return undefined;
  const segment = url.slice(base.length).split(/[/?#]/)[2];
  if (!segment) return undefined;
  try {
    return decodeURIComponent(segment);
    // Stryker disable next-line BlockStatement: an emptied catch also ends the function with undefined
  } catch {
    return undefined;
  }
}
