// `statements export --rate-limit … [--rate-budget STORE]`: the provider's
// request budget the export takes from, shared with every process that uses
// the same store (the other shards, the app's web instances).
import path from "node:path";
import { memoryRateBudget, type RateBudget, type RateLimit, type RateLimits } from "@fdxkit/client";
import { postgresRateBudget, type Queryable } from "@fdxkit/postgres";
import { openEmbedded, openPostgres, type StoreIo } from "../connections/store.js";
import { UsageError } from "../errors.js";
import { isPostgresUrl } from "../postgres-url.js";

/** Where the budget lives: this process only, or a database every process can reach. */
export type BudgetStore = { kind: "memory" } | { kind: "postgres"; url: string } | { kind: "directory"; dir: string };

/** An open budget, what it is for messages, and how to let go of its database. */
export interface OpenBudget {
  budget: RateBudget;
  /** `memory`, the URL without its password, or the directory. */
  where: string;
  close(): Promise<void>;
}

/** The burst of a `--rate-limit` that gives none. */
export const DEFAULT_BURST = 2;
/**
 * The reserve of a `--rate-limit` that gives none, with a burst of 2 or more:
 * nearly a whole request, so that a user call seldom waits for one, while the
 * export still finds a tenth of a token of room above it for when it is a
 * moment late to take the next. (A whole request, 1 with a burst of 2, leaves
 * the export no such room: it then loses the tokens that come meanwhile.)
 */
export const DEFAULT_RESERVE = 0.9;

const NUMBER = String.raw`(\d+(?:\.\d+)?|\.\d+)`;
const LIMIT = new RegExp(`^(?:(.+)=)?${NUMBER}(?:/${NUMBER}(?:/${NUMBER})?)?$`);
const FORM = "PER_SECOND[/BURST[/RESERVE]] or PROVIDER=PER_SECOND[/BURST[/RESERVE]]";

/**
 * `--rate-limit` values: `PER_SECOND[/BURST[/RESERVE]]` for every provider of
 * the run, `PROVIDER=PER_SECOND[/BURST[/RESERVE]]` for one (it wins over the
 * first form). RESERVE is the part of the burst the export leaves for the
 * app's end users (the budget's `userReserve`).
 */
export function parseRateLimits(values: readonly string[]): RateLimits {
  const limits: Record<string, RateLimit> = {};
  let fallback: RateLimit | undefined;
  for (const value of values) {
    const match = LIMIT.exec(value.trim());
    const perSecond = Number(match?.[2]);
    const burst = match?.[3] === undefined ? undefined : Number(match[3]);
    const reserve = match?.[4] === undefined ? undefined : Number(match[4]);
    if (!match || !(perSecond > 0) || (burst !== undefined && !(burst >= 1))) {
      throw new UsageError(`--rate-limit: must be ${FORM}, requests per second > 0 and a burst >= 1, e.g. 0.9/5 (got ${JSON.stringify(value)})`);
    }
    // Two unless told otherwise: with one, a token that comes while every process is a moment late to take it is
    // lost, and a fast provider's budget goes partly unused; the sizing rule is then perSecond <= (L - 2) / W.
    const limit: RateLimit = { perSecond, burst: burst ?? DEFAULT_BURST };
    if (reserve !== undefined) {
      if (!(reserve < limit.burst!)) throw new UsageError(`--rate-limit: the reserve must be below the burst (got ${JSON.stringify(value)})`);
      limit.userReserve = reserve;
    } else if (limit.burst! >= 2) {
      // Below a burst of 2 the budget's own default (a fifth of the burst) stays.
      limit.userReserve = Math.max(DEFAULT_RESERVE, limit.burst! / 5);
    }
    const provider = match[1];
    if (provider === undefined) {
      if (fallback) throw new UsageError("--rate-limit: give PER_SECOND[/BURST[/RESERVE]] without a provider once (it is the limit of every provider)");
      fallback = limit;
    } else {
      if (Object.hasOwn(limits, provider)) throw new UsageError(`--rate-limit: the provider ${JSON.stringify(provider)} is given twice`);
      limits[provider] = limit;
    }
  }
  return { limits, ...(fallback ? { default: fallback } : {}) };
}

/** `--rate-budget`: `memory`, a postgres:// URL, or a directory (an embedded database, as `--store` takes). */
export function parseBudgetStore(value: string): BudgetStore {
  const text = value.trim();
  if (text === "") throw new UsageError("--rate-budget: empty (memory, a postgres:// URL or a directory)");
  if (text === "memory") return { kind: "memory" };
  if (isPostgresUrl(text)) return { kind: "postgres", url: text };
  if (/^[A-Za-z][A-Za-z0-9+.-]+:/.test(text)) {
    throw new UsageError(`--rate-budget: expected memory, a postgres:// URL or a directory, not a ${text.slice(0, text.indexOf(":"))}: URL`);
  }
  return { kind: "directory", dir: path.resolve(text) };
}

/** A budget on a database the caller opened (and closes): the connections store's, under `--connections`. */
export function budgetOn(db: Queryable, limits: RateLimits): RateBudget {
  return postgresRateBudget(db, limits);
}

/** Opens the budget `store` names; a database's budget table is made when missing. */
export async function openBudget(store: BudgetStore, limits: RateLimits, io: StoreIo): Promise<OpenBudget> {
  if (store.kind === "memory") return { budget: memoryRateBudget(limits), where: "memory", close: async () => {} };
  const opened = store.kind === "postgres" ? await openPostgres(store.url, io.addSecrets, "--rate-budget") : await openEmbedded(store.dir, io, "--rate-budget");
  try {
    const budget = postgresRateBudget(opened.db, limits);
    // Told now, before any request, when the database cannot hold the budget.
    await budget.ready();
    return { budget, where: opened.where, close: () => opened.close() };
  } catch (error) {
    await opened.close();
    throw new UsageError(`--rate-budget: could not use ${opened.where} (${(error as Error).message})`, { cause: error });
  }
}

/**
 * A budget whose store is known only later (the connections store, opened
 * once the connections are read): every call goes to it once set. The
 * client is made before then, and makes no statement call before it.
 */
export function laterBudget(): { budget: RateBudget; set(target: RateBudget): void } {
  let target: RateBudget | undefined;
  const current = () => {
    if (!target) throw new Error("the rate budget's store is not open yet");
    return target;
  };
  return {
    budget: {
      take: (providerId, actor, signal) => current().take(providerId, actor, signal),
      pause: (providerId, ms) => current().pause(providerId, ms),
    },
    set: (value) => {
      target = value;
    },
  };
}

/** How the limits read in a message: `18/s, burst 2, 0.9 kept for users (every provider); bank-a 0.9/s, burst 5, 1 kept for users`. */
export function describeLimits(limits: RateLimits): string {
  const one = (l: RateLimit) => `${l.perSecond}/s, burst ${l.burst ?? DEFAULT_BURST}${l.userReserve === undefined ? "" : `, ${l.userReserve} kept for users`}`;
  return [
    ...(limits.default ? [`${one(limits.default)} (every provider)`] : []),
    ...Object.entries(limits.limits ?? {}).map(([id, l]) => `${id} ${one(l)}`),
  ].join("; ");
}

/** The budget flags of `statements export`, checked (nothing opened yet). */
export interface BudgetFlags {
  limits: RateLimits;
  /** Undefined: the connections store (`--connections` without `--rate-budget`). */
  store: BudgetStore | undefined;
}

/** Checks `--rate-limit` and `--rate-budget` together; undefined when neither is given (no budget). */
export function checkBudgetFlags(rateLimit: readonly string[] | undefined, rateBudget: string | undefined, byConnection: boolean): BudgetFlags | undefined {
  if (rateLimit === undefined && rateBudget === undefined) return undefined;
  if (rateLimit === undefined) {
    throw new UsageError(
      "--rate-budget: give the provider's limit too, with --rate-limit PER_SECOND[/BURST] (e.g. --rate-limit 0.9/5 for a provider that allows 60 requests a minute)",
    );
  }
  const limits = parseRateLimits(rateLimit);
  if (rateBudget !== undefined) return { limits, store: parseBudgetStore(rateBudget) };
  if (byConnection) return { limits, store: undefined };
  throw new UsageError(
    "--rate-limit: say where the budget is kept with --rate-budget: a postgres:// URL (shared by every process using it), a directory (an embedded database, one process at a time) or memory (this process only)",
  );
}

/** The export's budget, open; under `--connections` without `--rate-budget`, `useStore` connects it to the connections store. */
export interface ExportBudget extends OpenBudget {
  limits: RateLimits;
  useStore?: (db: Queryable, where: string) => void;
}

/** Opens the budget the flags name (the connections store's waits for `useStore`). */
export async function openExportBudget(flags: BudgetFlags, io: StoreIo): Promise<ExportBudget> {
  if (flags.store) return { ...(await openBudget(flags.store, flags.limits, io)), limits: flags.limits };
  const later = laterBudget();
  const result: ExportBudget = {
    budget: later.budget,
    where: "the connections store",
    limits: flags.limits,
    // The connections store closes it.
    close: async () => {},
    useStore: (db, where) => {
      later.set(budgetOn(db, flags.limits));
      result.where = `the connections store (${where})`;
    },
  };
  return result;
}
