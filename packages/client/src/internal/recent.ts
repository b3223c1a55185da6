/**
 * A set of strings that remembers the last `max` added, by a 53-bit hash of
 * each rather than the string: what a server sends (page URLs, statement ids)
 * can be long and endless, and the memory for it stays bounded. Two strings
 * share a hash with odds of about n² / 2⁵⁴ — for 100 000 entries, one in two
 * million — which at worst takes a new string for one seen before.
 */
export class RecentSet {
  private readonly hashes = new Set<number>();

  constructor(private readonly max: number) {}

  has(text: string): boolean {
    return this.hashes.has(hash53(text));
  }

  /** Adds `text`; past `max` entries, the oldest is forgotten. Returns false when it was there already. */
  add(text: string): boolean {
    const h = hash53(text);
    if (this.hashes.has(h)) return false;
    this.hashes.add(h);
    // A Set iterates in insertion order: its first entry is the oldest.
    if (this.hashes.size > this.max) this.hashes.delete(this.hashes.values().next().value!);
    return true;
  }
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
