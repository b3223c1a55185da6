// Input rules of the service description (subscription fields and limits), checked by the mock
// independently of the client's own checks.

export const CATEGORIES = ["MAINTENANCE", "CONSENT"] as const;
export const TYPES = ["SERVICE", "PLANNED_OUTAGE", "CONSENT_UPDATED", "CONSENT_REVOKED"] as const;

// http: is tolerated only where a developer runs a receiver on their own machine.
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function isCategory(value: unknown): value is (typeof CATEGORIES)[number] {
  return typeof value === "string" && (CATEGORIES as readonly string[]).includes(value);
}

export function isType(value: unknown): value is (typeof TYPES)[number] {
  return typeof value === "string" && (TYPES as readonly string[]).includes(value);
}

/** Longest callback URL kept (what browsers and most servers handle); longer ones are refused. */
export const MAX_CALLBACK_URL_LENGTH = 2048;

/** An absolute `https:` URL, or `http:` to a loopback host, of at most {@link MAX_CALLBACK_URL_LENGTH} characters. */
export function isCallbackUrl(value: unknown): value is string {
  if (typeof value !== "string" || value.length > MAX_CALLBACK_URL_LENGTH) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (url.protocol === "https:") return url.hostname !== "";
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

/** `YYYY-MM-DD` naming a real calendar day (so at most 10 characters). */
export function isEffectiveDate(value: unknown): value is string {
  if (typeof value !== "string") return false;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function isEmail(value: unknown): value is string {
  return typeof value === "string" && value.length <= 254 && /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
