/** A plain JSON object: not null, not an array. One copy for every body and input check. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
