// Rules that options of every entry share, each with the one message that
// names it, so a rule reads the same wherever it is broken.
import type { FdxIssue } from "../core/error.js";

/** Whether `value` is a safe integer of at least `min` (no coercion: a numeric string is not one). */
export const isIntegerAtLeast = (value: unknown, min: number): value is number => Number.isSafeInteger(value) && (value as number) >= min;

/** The message of the rule {@link isIntegerAtLeast} checks. */
export const integerMessage = (min: number): string => `must be an integer >= ${min}`;

/** Adds an issue at `path` unless `value` is an integer of at least `min`. */
export function checkInteger(value: unknown, min: number, path: string, issues: FdxIssue[]): void {
  if (!isIntegerAtLeast(value, min)) issues.push({ path, message: integerMessage(min) });
}

/**
 * `value` parsed, when it is an absolute http(s) URL without credentials:
 * a user name or password in a URL ends up in logs and errors, so none is taken.
 */
export function httpUrl(value: unknown): URL | undefined {
  if (typeof value !== "string") return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  return url.username || url.password ? undefined : url;
}

/** A loopback host as the URL parser spells it: `localhost`, any of 127.0.0.0/8, or `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname);
}
