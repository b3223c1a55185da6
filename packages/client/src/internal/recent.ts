/**
 * A set of strings that remembers the last `max` added, by a 53-bit hash of
 * each rather than the string: what a server sends (page URLs, statement ids)
 * can be long and endless, and the memory for it stays bounded. Two strings
 * share a hash with odds of about n² / 2⁵⁴ — for 100 000 entries, one in two
 * million — which at worst takes a new string for one seen before.
 *
 * Returns `add`: it adds a string and answers whether it was new.
 */
export function recentSet(max: number): (text: string) => boolean {
  const hashes = new Set<number>();
  return (text) => {
    const h = hash53(text);
    if (hashes.has(h)) return false;
    // A Set iterates in insertion order: its first entry is the oldest.
    if (hashes.add(h).size > max) hashes.delete(hashes.values().next().value!);
    return true;
  };
}

/** cyrb53 (public domain): a fast, well-mixed 53-bit string hash, not a cryptographic one. */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * Whether a string was seen before, as one bit of a 2¹⁷-bit map (16 KiB)
 * chosen by the hash above: nothing is allocated per string, and a check
 * costs a fraction of a Set's. A hit may be another string's bit — about
 * one check in nine once 2¹⁴ strings are in, after which the map starts
 * over, so it never fills up — so this is only for where such a mistake
 * costs nothing alone: the paginator counts a page as stale when every
 * statement on it was seen before, 100 pages in a row.
 *
 * Small on purpose: between two pages, parsing the next one streams through
 * the CPU's caches, and a check in a 128 KiB map missed them nearly every
 * time; a 16 KiB map stays in them.
 *
 * Returns `add`: it adds a string and answers whether it was new.
 */
export function seenBits(max = 1 << 14): (text: string) => boolean {
  let bits = new Int32Array(1 << 12);
  let count = 0;
  return (text) => {
    // The low 17 bits of the same hash: a word of the map, and a bit in it.
    const h = hash53(text);
    const word = (h >>> 5) & 0xfff;
    const bit = 1 << (h & 31);
    if (bits[word]! & bit) return false;
    if (++count > max) {
      bits = new Int32Array(1 << 12);
      count = 1;
    }
    bits[word]! |= bit;
    return true;
  };
}
