/** A SHA-256 fingerprint as upper-case hex without separators, or `undefined` if `value` is not 32 bytes of hex (colons and case ignored). */
export function normalizeFingerprint(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const hex = value.replace(/:/g, "").toUpperCase();
  return /^[0-9A-F]{64}$/.test(hex) ? hex : undefined;
}

/** Upper-case hex without separators → `"AB:CD:…"`, as Node prints `fingerprint256`. */
export function withColons(hex: string): string {
  return hex.replace(/(..)(?!$)/g, "$1:");
}
