/**
 * A set of strings that remembers the last `max` added, by a hash of each
 * rather than the string: what a server sends (page URLs, statement ids) can
 * be long and endless, and the memory for it stays bounded.
 *
 * Wide (the default), a 53-bit hash: two strings share one with odds of
 * about n² / 2⁵⁴ — for 100 000 entries, one in two million — which at worst
 * takes a new string for one seen before. Narrow, a 30-bit one, for where
 * such a mistake costs nothing (the paginator's statement ids: a page counts
 * as stale only when every statement on it was seen): it is a small integer,
 * which the Set holds without allocating: a 53-bit hash is a heap number
 * each, kept for the whole listing, which every collection then copies.
 *
 * Returns `add`: it adds a string and answers whether it was new.
 */
export function recentSet(max: number, narrow?: boolean): (text: string) => boolean {
  const hashes = new Set<number>();
  return (text) => {
    const h = hash(text, narrow);
    if (hashes.has(h)) return false;
    // A Set iterates in insertion order: its first entry is the oldest.
    if (hashes.add(h).size > max) hashes.delete(hashes.values().next().value!);
    return true;
  };
}

/** cyrb53 (public domain): a fast, well-mixed 53-bit string hash, not a cryptographic one; narrow, its low 30 bits. */
function hash(text: string, narrow: boolean | undefined): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return narrow ? h1 & 0x3fffffff : 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
