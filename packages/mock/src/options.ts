import type { MockOptions } from "./app.js";
import type { Variations } from "./state.js";

// Checks of the options a mock is created with: a bad value throws a clear
// TypeError or RangeError at once, not a strange answer later.

/** Default `redirectUris`: loopback callbacks, matched on any port (RFC 8252). */
export const DEFAULT_REDIRECT_URIS: readonly string[] = ["http://127.0.0.1/callback", "http://localhost/callback"];

function oneOf<T extends string>(name: string, value: T | undefined, allowed: readonly T[]): T {
  if (value === undefined) return allowed[0] as T;
  if (!allowed.includes(value)) throw new TypeError(`${name} must be ${allowed.map((a) => JSON.stringify(a)).join(" or ")}, got ${JSON.stringify(value)}`);
  return value;
}

export function positiveNumber(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a finite number > 0, got ${String(value)}`);
  return value;
}

export function checkRedirectUris(uris: readonly string[] | undefined): readonly string[] {
  if (uris === undefined) return DEFAULT_REDIRECT_URIS;
  if (!Array.isArray(uris) || uris.length === 0) throw new TypeError("redirectUris must be a non-empty array of absolute URLs");
  for (const uri of uris) {
    if (typeof uri !== "string" || !URL.canParse(uri) || uri.includes("#")) {
      throw new TypeError(`redirectUris must hold absolute URLs without a fragment, got ${JSON.stringify(uri)}`);
    }
  }
  return [...uris];
}

export function checkVariations(options: MockOptions): Variations & { latencyMs: number } {
  const latencyMs = options.latencyMs ?? 0;
  if (typeof latencyMs !== "number" || !Number.isFinite(latencyMs) || latencyMs < 0) {
    throw new RangeError(`latencyMs must be a finite number >= 0, got ${String(latencyMs)}`);
  }
  if (options.prevLinks !== undefined && typeof options.prevLinks !== "boolean") throw new TypeError("prevLinks must be a boolean");
  const required = options.requireActorType === undefined ? [] : options.requireActorType;
  if (!Array.isArray(required) || !required.every((id) => typeof id === "string" && id !== "")) {
    throw new TypeError("requireActorType must be an array of provider ids (non-empty strings)");
  }
  return {
    pagination: oneOf("pagination", options.pagination, ["links", "page"] as const),
    documents: oneOf("documents", options.documents, ["direct", "redirect"] as const),
    prevLinks: options.prevLinks ?? true,
    requireActorType: new Set(required),
    latencyMs,
  };
}
