// Injected faults of `faults: { rate, seed }`: what an unreliable provider or
// network does to a share of requests, in a sequence fixed by the seed.

/** Options of the `faults` variation. */
export interface FaultOptions {
  /** Share of requests (0 to 1) that get a fault instead of their answer. */
  rate: number;
  /** Seed of the sequence: the same seed gives the same faults on the same requests. Default: random. */
  seed?: number;
}

/** A fault: 503 Scheduled Maintenance, 429 with `Retry-After: 1`, or a connection reset (real server only). */
export type FaultKind = "maintenance" | "rate-limit" | "reset";

/** mulberry32: small, fast and good enough to spread faults; the same seed, the same sequence. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultInjector {
  readonly #rate: number;
  readonly #kinds: readonly FaultKind[];
  readonly #seed: number;
  #random: () => number;
  count = 0;

  constructor(options: FaultOptions, kinds: readonly FaultKind[]) {
    const { rate, seed } = options;
    if (typeof rate !== "number" || !(rate >= 0 && rate <= 1)) throw new RangeError(`faults.rate must be a number from 0 to 1, got ${String(rate)}`);
    if (seed !== undefined && !Number.isSafeInteger(seed)) throw new RangeError(`faults.seed must be an integer, got ${String(seed)}`);
    this.#rate = rate;
    this.#kinds = kinds;
    this.#seed = seed ?? Math.floor(Math.random() * 2 ** 32);
    this.#random = mulberry32(this.#seed);
  }

  /** The fault for the next request, if it gets one. */
  next(): FaultKind | undefined {
    // Two draws per request whatever the outcome, so one request's fault never shifts the next one's.
    const hit = this.#random() < this.#rate;
    const kind = this.#kinds[Math.floor(this.#random() * this.#kinds.length)] as FaultKind;
    if (!hit) return undefined;
    this.count++;
    return kind;
  }

  /** Back to the start of the sequence. */
  reset(): void {
    this.#random = mulberry32(this.#seed);
    this.count = 0;
  }
}
