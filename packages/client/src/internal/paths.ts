import type { paths as ConsentPaths } from "../generated/consents.js";
import type { paths as NotificationPaths } from "../generated/notifications.js";
import type { paths as StatementPaths } from "../generated/statements.js";

/** `{name}` placeholders of a path template, as a record of strings. */
export type PathParams<T extends string> = T extends `${string}{${infer K}}${infer Rest}` ? Record<K, string> & PathParams<Rest> : unknown;

/** The service's path templates, from the types generated from specs/: a typo is a type error. */
export type ApiPath = keyof NotificationPaths | keyof ConsentPaths | keyof StatementPaths;

/**
 * Fills a path template with percent-encoded parameters: `../x` or `a/b`
 * stay one segment (the ids' check refuses `.` and `..` themselves).
 */
export function buildPath<P extends ApiPath>(template: P, params: PathParams<P>): string {
  const values = params as Record<string, string>;
  let parts = templates.get(template);
  // Stryker disable next-line ConditionalExpression: splitting again gives the same parts; the cache only saves the work
  if (!parts) templates.set(template, (parts = template.split(/\{(\w+)\}/)));
  // Literal text at even indices, parameter names at odd ones.
  let path = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) path += encodeURIComponent(values[parts[i]!]!) + parts[i + 1]!;
  return path;
}

// Split once per template: a regex replace with a callback on every call was
// a visible part of what the SDK adds to a request.
const templates = new Map<string, string[]>();

/** A query string (with its `?`) of the defined parameters, in the order given; empty when there are none. */
export function buildQuery(query: Record<string, string | number | undefined>): string {
  let out = "";
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) out += `${out ? "&" : "?"}${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
  }
  return out;
}
