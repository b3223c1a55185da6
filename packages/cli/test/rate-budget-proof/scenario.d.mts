/** The budget each process gets in a mode, sized as the docs say (undefined: none). */
export function sizing(mode: "none" | "memory" | "postgres", limit: number): { perSecond: number; burst: number } | undefined;

export interface Latencies {
  calls: number;
  median: number;
  p95: number;
  failed: number;
  /** Calls still waiting when the web process stopped (their wait so far is in the figures). */
  unanswered: number;
}

/** One way of sharing the provider's limit, measured. */
export interface ProofRow {
  mode: "none" | "memory" | "postgres";
  budget: { perSecond: number; burst: number } | null;
  /** Statement calls the provider counted (the web process's included), and those it answered 429. */
  requests: number;
  rateLimited: number;
  rateLimitedShare: number;
  /** From the moment every export process was up to the last one's end. */
  exportMs: number;
  /** The calls the provider admitted in that time, at its limit. */
  idealMs: number;
  efficiency: number;
  /** How long after the first export process the last one was up. */
  startSpreadMs: number;
  shards: { shard: number; listed: number; downloaded: number; failed: number; ms: number }[];
  /** After every other shard with work ended: how long, and the share of the limit the provider then served. */
  tailMs: number;
  tailUse: number;
  /** The web process's user calls before the export started, and while it ran. */
  idle: Latencies;
  during: Latencies;
  /** The user calls' waits in the budget while the export ran. */
  duringWaits: Latencies;
}

export function runRateBudgetProof(options: {
  modes: ("none" | "memory" | "postgres")[];
  postgresUrl?: string;
  range: { from: string; to: string };
  limit?: number;
  everyMs?: number;
  idleMs?: number;
}): Promise<ProofRow[]>;
