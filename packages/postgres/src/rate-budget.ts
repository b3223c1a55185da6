import { FdxAbortError, FdxValidationError, type FdxIssue, type RateBudget, type RateLimit } from "@fdxkit/client";
import { checkKey, createIfMissing, guarded, quoteTable, type Queryable } from "./sql.js";

/** Options of {@link postgresRateBudget}. */
export interface PostgresRateBudgetOptions {
  /** Limits per provider id. */
  limits?: Record<string, RateLimit>;
  /** The limit of providers not named in `limits`; without it they are not limited. */
  default?: RateLimit;
  /** The table, optionally `schema.table`. Default `"fdxkit_rate_budget"`. */
  table?: string;
  /** Create the table on first use when it is missing. Default `true`. */
  createTable?: boolean;
}

/** A `RateBudget` (from `@fdxkit/client`) on PostgreSQL, with the table behind it. */
export interface PostgresRateBudget extends RateBudget {
  /** Creates the table when it is missing (every method does this first). */
  ready(): Promise<void>;
}

interface Limit {
  perSecond: number;
  burst: number;
  /** Tokens a batch call needs in the bucket: one plus the user reserve, at most the burst. */
  batchNeeds: number;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
  stop: () => void;
}

/** One provider's waiters in this process: a single loop asks the database for all of them. */
interface Line {
  users: Waiter[];
  batch: Waiter[];
  running: boolean;
  /** Ends the loop's current wait early (a user call arrived while batch calls waited). */
  wake: (() => void) | undefined;
}

/** Longest a waiting loop sleeps before asking again; the database's answer usually says less. */
const MAX_WAIT_MS = 1000;
/** How long a refused user call marks the provider as having users waiting, beyond its own expected wait. */
const USER_MARK_S = 0.25;

/** The statements that create the budget table, for an app's own migration tool. */
export function rateBudgetTableSql(table = "fdxkit_rate_budget"): string {
  return `${rateBudgetTableStatements(table).join(";\n\n")};\n`;
}

function rateBudgetTableStatements(table: string): string[] {
  const quoted = quoteTable(table, "table");
  return [
    `CREATE TABLE IF NOT EXISTS ${quoted} (
  provider_id         text PRIMARY KEY,
  tokens              double precision NOT NULL,
  updated_at          timestamptz NOT NULL,
  paused_until        timestamptz,
  users_waiting_until timestamptz
)`,
  ];
}

const COLUMNS = ["provider_id", "tokens", "updated_at", "paused_until", "users_waiting_until"] as const;

function resolveLimit(limit: RateLimit | undefined, path: string, issues: FdxIssue[]): Limit | undefined {
  if (limit === undefined) return undefined;
  const perSecond = limit?.perSecond;
  const burst = limit?.burst ?? perSecond;
  const userReserve = limit?.userReserve ?? burst / 5;
  const positive = (value: unknown) => typeof value === "number" && Number.isFinite(value) && value > 0;
  if (!positive(perSecond)) issues.push({ path: `${path}.perSecond`, message: "must be a finite number > 0" });
  if (!positive(burst) || burst < 1) issues.push({ path: `${path}.burst`, message: "must be a finite number >= 1" });
  if (!(typeof userReserve === "number" && userReserve >= 0 && userReserve < burst))
    issues.push({ path: `${path}.userReserve`, message: "must be a number >= 0 and below burst" });
  return { perSecond, burst, batchNeeds: Math.min(1 + userReserve, burst) };
}

/**
 * One rate budget per provider for every process of an app, on the database
 * its connections live in (a node-postgres `Pool`, PGlite, …): a token bucket
 * per provider in one row, taken from by one `UPDATE … RETURNING` per request
 * on the database's clock, so hosts whose clocks differ still share one
 * budget. In a process, the calls waiting for one provider are served by a
 * single loop (users first), so a busy process asks the database about once
 * per token, not once per waiting call. A user call the bucket cannot serve
 * marks the row, and batch calls of every process hold back until it is
 * served; batch calls also leave the user reserve in the bucket.
 *
 * @example
 * ```ts
 * const rateBudget = postgresRateBudget(pool, { limits: { "bank-a": { perSecond: 2, burst: 5 } } });
 * const client = createClient({ baseUrl, token, rateBudget });
 * ```
 */
export function postgresRateBudget(db: Queryable, options: PostgresRateBudgetOptions = {}): PostgresRateBudget {
  if (db === null || typeof db !== "object" || typeof (db as { query?: unknown }).query !== "function") {
    throw new FdxValidationError([{ path: "db", message: "must have a query(text, params) method (a pg Pool or Client, PGlite, …)" }]);
  }
  const table = options.table ?? "fdxkit_rate_budget";
  const quoted = quoteTable(table, "table");
  const issues: FdxIssue[] = [];
  const limits = new Map<string, Limit>();
  for (const [providerId, limit] of Object.entries(options.limits ?? {})) {
    const resolved = resolveLimit(limit, `limits.${providerId}`, issues);
    if (resolved) limits.set(providerId, resolved);
  }
  const fallback = resolveLimit(options.default, "default", issues);
  if (issues.length) throw new FdxValidationError(issues);

  const statements = rateBudgetTableStatements(table);
  let creating: Promise<void> | undefined;
  const ready = (): Promise<void> => {
    if (options.createTable === false) return Promise.resolve();
    creating ??= createIfMissing(db, statements, table, quoted).catch((error: unknown) => {
      creating = undefined;
      throw error;
    });
    return creating;
  };

  const { takeSql, createRowSql, pauseSql } = budgetSql(quoted);

  const rowsMade = new Set<string>();
  const lines = new Map<string, Line>();

  /** One take in the database: whether it took, and when to ask again. */
  const takeOnce = async (providerId: string, limit: Limit, user: boolean): Promise<{ took: boolean; waitMs: number }> => {
    await ready();
    for (;;) {
      if (!rowsMade.has(providerId)) {
        await guarded("take", table, COLUMNS, () => db.query(createRowSql, [providerId, limit.burst]));
        rowsMade.add(providerId);
      }
      const { rows } = await guarded("take", table, COLUMNS, () =>
        db.query(takeSql, [providerId, limit.perSecond, limit.burst, user ? 1 : limit.batchNeeds, user]),
      );
      const row = rows[0] as { took?: unknown; wait_ms?: unknown } | undefined;
      // The row was deleted (a migration, a reset): made again, and asked again.
      if (!row) {
        rowsMade.delete(providerId);
        continue;
      }
      const waitMs = Number(row.wait_ms);
      return { took: row.took === true, waitMs: Number.isFinite(waitMs) ? waitMs : MAX_WAIT_MS };
    }
  };

  const run = async (providerId: string, limit: Limit, line: Line) => {
    line.running = true;
    try {
      while (line.users.length || line.batch.length) {
        const user = line.users.length > 0;
        const { took, waitMs } = await takeOnce(providerId, limit, user);
        if (took) {
          // Whoever is first now: the caller this token was asked for may have given up meanwhile.
          (line.users.shift() ?? line.batch.shift())?.resolve();
          continue;
        }
        // A user call that came while the database was asked for a batch one is asked for at once.
        if (!user && line.users.length) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.min(MAX_WAIT_MS, Math.max(1, Math.ceil(waitMs))));
          function done() {
            clearTimeout(timer);
            line.wake = undefined;
            resolve();
          }
          // A user call that arrives while batch calls wait is asked for at once.
          line.wake = user ? undefined : done;
        });
      }
    } catch (error) {
      // The database failed: every caller waiting here hears of it, none is left hanging.
      for (const waiter of [...line.users.splice(0), ...line.batch.splice(0)]) waiter.reject(error);
    } finally {
      line.running = false;
    }
  };

  return {
    ready,

    take(providerId, actor, signal) {
      try {
        checkKey(providerId, "providerId");
        if (providerId === "") throw new FdxValidationError([{ path: "providerId", message: "must be a non-empty string" }]);
        if (actor !== "user" && actor !== "batch") throw new FdxValidationError([{ path: "actor", message: 'must be "user" or "batch"' }]);
      } catch (error) {
        return Promise.reject(error);
      }
      if (signal?.aborted) return Promise.reject(new FdxAbortError(undefined, { cause: signal.reason }));
      const limit = limits.get(providerId) ?? fallback;
      if (!limit) return Promise.resolve();
      let line = lines.get(providerId);
      if (!line) {
        line = { users: [], batch: [], running: false, wake: undefined };
        lines.set(providerId, line);
      }
      const queue = actor === "user" ? line.users : line.batch;
      const current = line;
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          reject(new FdxAbortError(undefined, { cause: signal!.reason }));
        };
        const waiter: Waiter = {
          resolve: () => {
            waiter.stop();
            resolve();
          },
          reject: (error) => {
            waiter.stop();
            reject(error);
          },
          stop: () => own?.removeEventListener("abort", onAbort),
        };
        // A signal of our own that follows the caller's: many calls sharing one signal leave no pile of listeners on it.
        const own = signal && AbortSignal.any([signal]);
        own?.addEventListener("abort", onAbort, { once: true });
        queue.push(waiter);
        if (actor === "user") current.wake?.();
        if (!current.running) void run(providerId, limit, current);
      });
    },

    async pause(providerId, ms) {
      checkKey(providerId, "providerId");
      if (!(typeof ms === "number" && Number.isFinite(ms) && ms >= 0)) throw new FdxValidationError([{ path: "ms", message: "must be a finite number >= 0" }]);
      await ready();
      await guarded("pause", table, COLUMNS, () => db.query(pauseSql, [providerId, ms]));
      rowsMade.add(providerId);
      // A waiting loop asks again now: it will learn of the pause from the row.
      lines.get(providerId)?.wake?.();
    },
  };
}

/** The three statements of a budget on `quoted` (a validated, quoted table name). */
function budgetSql(quoted: string): { takeSql: string; createRowSql: string; pauseSql: string } {
  // $1 provider, $2 perSecond, $3 burst, $4 tokens this actor needs, $5 is a user call.
  // The row is refilled and, when there is enough and nothing holds the call back, one token taken; a refused
  // user call marks the row so that batch calls everywhere wait, and a user call served clears the mark (a user
  // still waiting elsewhere marks it again when next refused), so batch calls are held while a user waits, not
  // for the mark's whole margin. wait_ms says when to ask again: a held batch call asks once the next token
  // (the user's) and its own may have come, not when the mark ends, or it would sleep past the user's take.
  const takeSql = `WITH s AS (
  SELECT provider_id, clock_timestamp() AS now, paused_until, users_waiting_until,
    LEAST($3::float8, tokens + $2::float8 * GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() - updated_at))::float8) AS avail
  FROM ${quoted} WHERE provider_id = $1 FOR UPDATE
  ), d AS (
  SELECT s.*, (COALESCE(paused_until <= now, true) AND avail >= $4::float8 AND ($5::boolean OR COALESCE(users_waiting_until <= now, true))) AS took FROM s
  )
  UPDATE ${quoted} AS b SET
  tokens = d.avail - CASE WHEN d.took THEN 1 ELSE 0 END,
  updated_at = GREATEST(d.now, b.updated_at),
  users_waiting_until = CASE WHEN $5::boolean AND NOT d.took
    THEN GREATEST(b.users_waiting_until, d.now + make_interval(secs => GREATEST(0, (1 - d.avail) / $2::float8) + ${USER_MARK_S}))
    WHEN $5::boolean THEN NULL
    ELSE b.users_waiting_until END
  FROM d WHERE b.provider_id = d.provider_id
  RETURNING d.took AS took, GREATEST(
  EXTRACT(EPOCH FROM d.paused_until - d.now)::float8 * 1000,
  ($4::float8 - d.avail) / $2::float8 * 1000,
  CASE WHEN $5::boolean OR d.users_waiting_until IS NULL OR d.users_waiting_until <= d.now THEN NULL
    ELSE LEAST(EXTRACT(EPOCH FROM d.users_waiting_until - d.now)::float8, ($4::float8 + 1 - d.avail) / $2::float8) * 1000 END
  ) AS wait_ms`;
  const createRowSql = `INSERT INTO ${quoted} (provider_id, tokens, updated_at) VALUES ($1, $2, clock_timestamp()) ON CONFLICT (provider_id) DO NOTHING`;
  // The provider refused: the bucket is empty, and fills again only once the pause ends.
  const pauseSql = `INSERT INTO ${quoted} AS b (provider_id, tokens, updated_at, paused_until)
  VALUES ($1, 0, clock_timestamp() + $2::float8 * interval '1 millisecond', clock_timestamp() + $2::float8 * interval '1 millisecond')
  ON CONFLICT (provider_id) DO UPDATE SET tokens = 0,
  paused_until = GREATEST(b.paused_until, EXCLUDED.paused_until),
  updated_at = GREATEST(b.updated_at, EXCLUDED.updated_at)`;
  return { takeSql, createRowSql, pauseSql };
}
