/**
 * A random UUID v4. `crypto.randomUUID` exists only in secure contexts (a
 * browser page on plain http:// to a LAN host has none); `getRandomValues`
 * exists everywhere. The template's 4 is the version; each 8 becomes 8–b
 * (the variant), each 0 or 1 a random hex digit.
 */
export const uuid = (): string =>
  typeof crypto.randomUUID === "function"
    ? crypto.randomUUID()
    : "10000000-1000-4000-8000-100000000000".replace(/[018]/g, (c) => (+c ^ (crypto.getRandomValues(new Uint8Array(1))[0]! & (15 >> (+c / 4)))).toString(16));
