// Turns the results object into the targets verdict, a Markdown report and a console summary.
import { ratio } from "./stats.mjs";

export const TARGETS = {
  overheadRatio: 1.03,
  // Node's own transport (issue 29): against raw fetch, whose own cost it does not pay.
  nodeOverheadRatio: 0.75,
  nodePaginationRatio: 0.85,
  paginationRatio: 1.03,
  downloadRatio: 1.03,
  downloadRssRiseMiB: 16,
  gzipBombRssRiseMiB: 64,
  // Webhook receive throughput: createWebhookHandler at least this share of a bare JSON-parsing handler.
  webhookRatio: 0.8,
  // kB read as 1000 bytes, the stricter of the two readings. The size gate's budget (scripts/check-bundle.mjs says
  // what raised it from 10 kB, issue 26's limits and issue 24's token repeat, and why issue 29 lowered it).
  bundleGzipBytes: 11_700,
  exportEfficiency: 0.85,
  // A call with `connections.token(id)` against the same call with a static token: the hot path reads no store.
  connectionsHotPathRatio: 1.05,
  // The CLI's embedded store: what it adds to a command over a postgres:// store, and an in-memory PGlite opened for a test.
  cliStoreAddedMs: 500,
  cliStoreMemoryMs: 1000,
  // One rate budget shared through PostgreSQL by 4 export shards and a web process (issue 37's goals).
  rateBudgetLimitedShare: 0.01,
  rateBudgetEfficiency: 0.9,
  rateBudgetUserP95Ratio: 2,
  rateBudgetTailUse: 0.8,
};

const x = (n) => `${n.toFixed(2)}×`;
const kB = (bytes) => `${(bytes / 1000).toFixed(2)} kB`;
const bytes = (n) => `${n.toLocaleString("en-US")} B`;
const percent = (share) => `${(share * 100).toFixed(1)} %`;

/** Each target with the figure measured for it and whether it was met. */
export function checkTargets(results) {
  const t = [];
  const sdkCall = results.overhead?.contenders.find((c) => c.name === "fdxkit consents.get");
  if (sdkCall) {
    t.push({
      target: "per-call overhead (consents.get, median)",
      limit: `≤ ${x(TARGETS.overheadRatio)} raw fetch`,
      measured: x(sdkCall.medianRatio),
      met: sdkCall.medianRatio <= TARGETS.overheadRatio,
    });
    // Not the issue's target: what the SDK costs beyond the timeout signal every call of it carries.
    t.push({
      target: "per-call overhead beyond the timeout signal (consents.get vs raw fetch with the same signal)",
      limit: `≤ ${x(TARGETS.overheadRatio)}`,
      measured: x(sdkCall.vsTimeoutSignal),
      met: sdkCall.vsTimeoutSignal <= TARGETS.overheadRatio,
    });
  }
  if (sdkCall) {
    t.push({
      target: "Node's own transport: consents.get vs raw fetch (median)",
      limit: `≤ ${x(TARGETS.nodeOverheadRatio)}`,
      measured: x(sdkCall.medianRatio),
      met: sdkCall.medianRatio <= TARGETS.nodeOverheadRatio,
    });
  }
  if (results.pagination) {
    t.push({
      target: "Node's own transport: pagination vs the hand-written fetch loop (median)",
      limit: `≤ ${x(TARGETS.nodePaginationRatio)}`,
      measured: x(results.pagination.ratio),
      met: results.pagination.ratio <= TARGETS.nodePaginationRatio,
    });
  }
  if (results.pagination) {
    const r = results.pagination.ratio;
    t.push({
      target: "pagination (for await vs hand loop, median)",
      limit: `≤ ${x(TARGETS.paginationRatio)}`,
      measured: x(r),
      met: r <= TARGETS.paginationRatio,
    });
    const v = results.pagination.vsTimeoutSignal;
    // Not the issue's target, as above: the SDK against a hand loop whose requests carry the same timeout signal.
    t.push({
      target: "pagination beyond the timeout signal (vs the hand loop with a timeout signal per request)",
      limit: `≤ ${x(TARGETS.paginationRatio)}`,
      measured: x(v),
      met: v <= TARGETS.paginationRatio,
    });
  }
  if (results.download) {
    for (const s of results.download.scenarios.filter((s) => s.sdk)) {
      t.push({
        target: `download time: ${s.name}`,
        limit: `≤ ${x(TARGETS.downloadRatio)} raw fetch`,
        measured: x(s.vsFetch),
        met: s.vsFetch <= TARGETS.downloadRatio,
      });
      t.push({
        target: `download peak RSS rise: ${s.name}`,
        limit: `≤ ${TARGETS.downloadRssRiseMiB} MiB`,
        measured: `${s.rssRiseMiB.toFixed(1)} MiB`,
        met: s.rssRiseMiB <= TARGETS.downloadRssRiseMiB,
      });
    }
  }
  if (results.gzipBomb) {
    const g = results.gzipBomb;
    const mib = g.rssRiseBytes / 1024 / 1024;
    const rejected = g.outcome.startsWith("FdxResponseError");
    t.push({
      target: "gzip bomb on consents.get: peak RSS rise",
      limit: `≤ ${TARGETS.gzipBombRssRiseMiB} MiB, rejected`,
      measured: `${mib.toFixed(1)} MiB, ${rejected ? "rejected" : g.outcome}`,
      met: rejected && mib <= TARGETS.gzipBombRssRiseMiB,
    });
  }
  const exporter = results.export?.contenders.find((c) => c.sdk);
  if (exporter) {
    t.push({
      target: "bulk export vs rate-limit bound (efficiency)",
      limit: `≥ ${TARGETS.exportEfficiency}`,
      measured: `${exporter.efficiency.toFixed(2)}`,
      met: exporter.efficiency >= TARGETS.exportEfficiency,
    });
    t.push({ target: "bulk export: failed downloads", limit: "0", measured: `${exporter.failed}`, met: exporter.failed === 0 });
  }
  for (const r of results.webhooks?.runtimes ?? []) {
    const target = `webhook receive throughput: ${r.runtime} (handler vs bare JSON parse)`;
    if (r.error) t.push({ target, limit: `≥ ${x(TARGETS.webhookRatio)}`, measured: "did not run", met: false });
    else t.push({ target, limit: `≥ ${x(TARGETS.webhookRatio)}`, measured: x(r.ratio), met: r.ratio >= TARGETS.webhookRatio });
  }
  const tokenFn = results.connections?.contenders.find((c) => c.sdk);
  if (tokenFn) {
    t.push({
      target: "a call with connections.token(id) vs a static token (median)",
      limit: `≤ ${x(TARGETS.connectionsHotPathRatio)}`,
      measured: x(tokenFn.medianRatio),
      met: tokenFn.medianRatio <= TARGETS.connectionsHotPathRatio,
    });
    const reads = results.connections.storeReadsDuringTimedCalls;
    t.push({ target: "connections.token(id): store reads during the timed calls", limit: "0", measured: `${reads}`, met: reads === 0 });
  }
  const refresh = results.connectionsRefresh;
  if (refresh) {
    const target = `${refresh.connections} connections refreshed by ${refresh.processes} processes on PostgreSQL: refreshes per connection, conflicts`;
    if (refresh.skipped) t.push({ target, limit: "1 and 0", measured: `did not run: ${refresh.skipped}`, met: false });
    else
      t.push({
        target,
        limit: "1 and 0",
        measured: `${refresh.refreshesPerConnection} and ${refresh.conflicts}`,
        met: refresh.refreshesPerConnection === 1 && refresh.conflicts === 0 && refresh.failedCalls === 0,
      });
  }
  const store = results.cliStore;
  if (store) {
    const target = "fdxkit connections list: embedded store vs --store postgres:// (added)";
    if (typeof store.list.postgres === "string")
      t.push({ target, limit: `≤ ${TARGETS.cliStoreAddedMs} ms`, measured: `did not run: ${store.list.postgres}`, met: false });
    else t.push({ target, limit: `≤ ${TARGETS.cliStoreAddedMs} ms`, measured: `${store.list.addedMs} ms`, met: store.list.addedMs <= TARGETS.cliStoreAddedMs });
    t.push({
      target: "an in-memory PGlite store opened (openPGlite, table ready)",
      limit: `≤ ${TARGETS.cliStoreMemoryMs} ms`,
      measured: `${store.memory.openPGlite.medianMs} ms`,
      met: store.memory.openPGlite.medianMs <= TARGETS.cliStoreMemoryMs,
    });
  }
  const shared = results.rateBudget;
  if (shared && !shared.skipped && !results.meta.smoke) {
    const r = shared.rows.find((row) => row.mode === "postgres");
    const where = "one PostgreSQL rate budget, 4 export shards and a web process";
    t.push({
      target: `${where}: 429s`,
      limit: `≤ ${TARGETS.rateBudgetLimitedShare * 100} % of calls`,
      measured: percent(r.rateLimitedShare),
      met: r.rateLimitedShare <= TARGETS.rateBudgetLimitedShare,
    });
    t.push({
      target: `${where}: export efficiency (limit-bound time / time)`,
      limit: `≥ ${TARGETS.rateBudgetEfficiency}`,
      measured: r.efficiency.toFixed(3),
      met: r.efficiency >= TARGETS.rateBudgetEfficiency,
    });
    t.push({
      target: `${where}: user calls' p95 vs idle`,
      limit: `≤ ${x(TARGETS.rateBudgetUserP95Ratio)}`,
      measured: x(r.during.p95 / r.idle.p95),
      met: r.during.p95 <= TARGETS.rateBudgetUserP95Ratio * r.idle.p95,
    });
    t.push({
      target: `${where}: share of the limit used once one shard is left`,
      limit: `≥ ${TARGETS.rateBudgetTailUse}`,
      measured: r.tailUse.toFixed(3),
      met: r.tailUse >= TARGETS.rateBudgetTailUse,
    });
  }
  const ours = results.bundle?.entries.find((e) => e.sdk);
  if (ours) {
    t.push({
      target: "typical-use browser bundle (min+gzip)",
      limit: `≤ ${bytes(TARGETS.bundleGzipBytes)}`,
      measured: `${bytes(ours.gzipBytes)} (${kB(ours.gzipBytes)})`,
      met: ours.gzipBytes <= TARGETS.bundleGzipBytes,
    });
  }
  return t;
}

function table(head, rows) {
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
}

export function toMarkdown(results) {
  const { meta } = results;
  const out = [];
  out.push("# Benchmarks");
  out.push("");
  out.push(
    `Generated by \`pnpm bench\` (bench/) on ${meta.date}: Node ${meta.node}, ${meta.cpus} × ${meta.cpu}, ${meta.platform}, load average ${meta.loadAverageAtStart?.[0] ?? "?"} at the start. ` +
      "Absolute times depend on the machine and its load; the ratios come from one run in which every contender was measured the same way, interleaved. " +
      `The full results are in \`${meta.resultsFile ?? "bench/results.json"}\`. The run took ${Math.round(meta.durationMs / 1000)} s.`,
  );
  for (const u of meta.updated ?? []) {
    out.push("");
    out.push(`Re-run on ${u.date} (Node ${u.node}) and written in: ${u.sections.join(", ")}; the other sections are from the run above.`);
  }
  if (meta.otherRuns?.length) {
    out.push("");
    out.push(
      `\`pnpm bench\` runs twice; this is the run on Node ${meta.node}. ${meta.otherRuns.map((o) => `On Node ${o.major}: [${o.file}](${o.file}).`).join(" ")}`,
    );
  }
  out.push("");
  out.push("## Targets");
  out.push("");
  out.push(
    table(
      ["target", "limit", "measured", ""],
      results.targets.map((t) => [t.target, t.limit, t.measured, t.met ? "✔" : "✘ missed"]),
    ),
  );

  if (results.overhead) {
    const o = results.overhead;
    out.push("", "## Per-call overhead", "");
    out.push(
      `One \`GET /consents/v1/{id}\` with its JSON body parsed, against a keep-alive \`node:http\` server in a separate process; the same URL, headers (\`Authorization\`, \`Accept\`) and body for all. ` +
        `Calls one at a time, ${o.warmup} warm-up calls each, then ${o.rounds} interleaved rounds of ${o.callsPerRound} calls per contender (${o.calls} timed calls each). ` +
        "*vs raw fetch* is the median of the per-round ratios (each round's median against raw fetch's in the same round), which keeps the machine's drift out of the ratio; *pooled* divides the medians of all calls. " +
        "Every SDK call has a timeout, so it hands fetch an `AbortSignal`; the row with a timeout signal shows what that alone costs a raw-fetch user (undici follows each signal with a listener and a finalizer), and *vs same signal* compares with that row. " +
        "*CPU* is the client process's CPU time per call (user + system, median of the rounds): on loopback the server sleeps between calls, so each microsecond of client work shows as about two of latency (the write that wakes the server counts as the client's system time). " +
        `*${o.concurrency} at a time* runs the same calls with ${o.concurrency} in flight, so the server never sleeps: throughput, and time per call against raw fetch's (paired per round).`,
      "",
    );
    out.push(
      table(
        [
          "client",
          "median",
          "p99",
          "vs raw fetch",
          "pooled",
          "vs same signal",
          "p99 vs raw fetch",
          "CPU per call",
          "CPU vs raw fetch",
          `${o.concurrency} at a time`,
          `${o.concurrency} at a time vs raw fetch`,
        ],
        o.contenders.map((c) => [
          c.sdk ? `**${c.name}**` : c.name,
          `${c.medianUs} µs`,
          `${c.p99Us} µs`,
          x(c.medianRatio),
          x(c.pooledMedianRatio),
          x(c.vsTimeoutSignal),
          x(c.p99Ratio),
          `${c.cpuUs} µs`,
          x(c.cpuRatio),
          `${c.concurrentRps.toLocaleString("en-US")}/s`,
          x(c.concurrentRatio),
        ]),
      ),
    );
  }
  if (results.pagination) {
    const p = results.pagination;
    out.push("", "## Pagination", "");
    out.push(
      `${p.pages} pages of ${p.perPage} statements (${p.statements} statements), every statement visited; ${p.rounds} interleaved rounds. ` +
        "*vs hand loop* is the median of the per-round ratios; *pooled* divides the medians of all runs. Every SDK request has a timeout; the hand loop with a timeout signal per request shows what that alone costs.",
      "",
    );
    out.push(
      table(
        ["loop", "median", "per page", "vs hand loop", "pooled", "vs hand loop with a timeout signal"],
        [
          ["hand-written `fetch` loop following `links.next.href`", `${p.handLoopMs} ms`, `${p.perPageUs.handLoop} µs`, "1.00×", "1.00×", ""],
          [
            "the same loop, a 30 s timeout signal per request",
            `${p.handLoopSignalMs} ms`,
            `${p.perPageUs.handLoopSignal} µs`,
            x(p.signalRatio),
            x(ratio(p.handLoopSignalMs, p.handLoopMs)),
            "1.00×",
          ],
          ["**fdxkit `for await` over `statements.list`**", `${p.sdkMs} ms`, `${p.perPageUs.sdk} µs`, x(p.ratio), x(p.pooledRatio), x(p.vsTimeoutSignal)],
          ...(p.nodeHttpMs === undefined
            ? []
            : [
                [
                  "the hand loop on keep-alive `node:http` (the floor; no timeout, no checks)",
                  `${p.nodeHttpMs} ms`,
                  `${p.perPageUs.nodeHttp} µs`,
                  x(p.nodeHttpRatio),
                  x(ratio(p.nodeHttpMs, p.handLoopMs)),
                  "",
                ],
              ]),
        ],
      ),
    );
    if (p.vsNodeHttp !== undefined) out.push("", `fdxkit over the \`node:http\` floor: ${x(p.vsNodeHttp)} (median of the per-round ratios).`);
    const s = p.slowConsumer;
    out.push("", `With a slow consumer (${s.workMsPerPage} ms of awaited work per page, median of ${s.rounds} runs):`, "");
    out.push(
      table(
        ["pages", "median", "gain"],
        [
          ["sequential (default)", `${s.sequentialMs} ms`, ""],
          ["`client.statements.list(params, { prefetch: 1 })`", `${s.prefetchMs} ms`, `${x(s.speedup)} faster`],
        ],
      ),
    );
  }
  if (results.gzipBomb) {
    const g = results.gzipBomb;
    out.push("", "## Gzip bomb on a JSON call", "");
    out.push(
      `\`consents.get\` against a server whose gzip answer inflates to ${g.inflatedBytes / 1024 / 1024} MiB of JSON whitespace, default \`maxResponseBytes\` (16 MiB), in a fresh process sampling its RSS every 2 ms: ` +
        `${g.outcome} after ${g.ms} ms; peak RSS rise **${(g.rssRiseBytes / 1024 / 1024).toFixed(1)} MiB**; the server was asked for ${(g.producedBytes / 1024 / 1024).toFixed(0)} MiB before reading stopped.`,
    );
  }
  if (results.download) {
    const d = results.download;
    out.push("", "## Download", "");
    out.push(
      `${d.mib} MiB, each run in a fresh process (\`--expose-gc\`) that first downloads ${d.warmUpMiB} MiB the same way, in 256 KiB pieces, to warm up. Time: ${d.timeRuns} rounds of one fresh process per path, each timing three downloads and keeping their median (nothing forced); *vs fetch* and *vs node:http* are the median of the per-round ratios. Memory: median of ${d.memoryRuns} separate runs forcing a full collection every ${d.gcEveryMiB} MiB of body, ` +
        "sampling right after it; *RSS rise* is the peak over the warmed-up process's baseline, *held* the rise of `heapUsed + external` (what live objects and buffers hold; RSS also keeps what V8 and the allocator retain for reuse). " +
        "*Cold RSS rise* is the same with a 1 MiB warm-up only: the first large download in a fresh process also pays, once, for V8 compiling undici's WebAssembly HTTP parser with its optimising tier (some 30 MiB for a moment, with `fetch` whoever calls it). " +
        "The file runs give raw fetch and `node:http` the same durability as `saveStatement`: a temporary file, flushed, then renamed.",
      "",
    );
    out.push(
      table(
        ["path", "time", "MiB/s", "vs fetch", "vs node:http", "peak RSS rise", "held rise", "cold RSS rise"],
        d.scenarios.map((s) => [
          s.sdk ? `**${s.name}**` : s.name,
          `${s.ms} ms`,
          `${s.mibPerS}`,
          x(s.vsFetch),
          x(s.vsHttp),
          `${s.rssRiseMiB.toFixed(1)} MiB`,
          `${s.heldRiseMiB.toFixed(1)} MiB`,
          `${s.coldRssRiseMiB.toFixed(1)} MiB`,
        ]),
      ),
    );
  }
  if (results.export) {
    const e = results.export;
    out.push("", "## Bulk export against a rate limit", "");
    out.push(
      `\`fdxkit statements export\` of ${e.accounts} accounts (${e.statements} statements listed, ${e.requests} requests: ${e.pages} list pages and one download per available statement) against the sandbox server with \`rateLimit: { limit: ${e.rateLimit.limit}, windowMs: ${e.rateLimit.windowMs} }\` and \`latencyMs: ${e.latencyMs}\`, default concurrency; median of ${e.runs} interleaved runs on one sandbox, its PDFs rendered once in a warm-up and its rate-limit window reset before each run. ` +
        `The rate-limit bound is requests ÷ rate = ${e.boundMs} ms; *efficiency* is that bound over the export's time (from its first request to its last file; *with start-up* counts the whole process). ` +
        "The baseline is the single-account export of before (bench/src/export-single.mjs), one process per account, each worker retrying its own 429s. " +
        "The row without a rate limit shows the machine's own pace: the rate-limited export cannot be faster than it, whatever the bound. " +
        "The sandbox answers a 429 with `Retry-After` in whole seconds (at least 1), which every worker honours. The export bursts into the limit once (the requests in flight then get 429s), pauses for that second, and from then on lets every request, its retries and list pages included, start only while fewer than the sandbox admitted before the 429 started in the last `Retry-After` plus 5% (*pace*), so the later windows are filled without meeting the limit. The 429s' retries are requests too, not counted in the bound; a fixed-window limiter admits a whole window at once, so an export of a few windows can beat the bound (efficiency above 1).",
      "",
    );
    out.push(
      table(
        ["export", "time", "with start-up", "efficiency", "with start-up", "failed downloads", "429s", "shared pauses", "lowest concurrency", "pace"],
        e.contenders.map((c) => [
          c.sdk ? `**${c.name}**` : c.name,
          `${c.exportMs} ms`,
          `${c.wallMs} ms`,
          c.efficiency.toFixed(2),
          c.efficiencyWithStartup.toFixed(2),
          `${c.failed}`,
          `${c.rateLimited}`,
          c.pauses ?? "—",
          c.minConcurrency ?? "—",
          c.pace ? `${c.pace.requests} per ${c.pace.windowMs} ms` : "—",
        ]),
      ),
    );
  }
  if (results.connections) {
    const c = results.connections;
    out.push("", "## Connections: the token function on the hot path", "");
    out.push(
      "One statement page read from the sandbox (`@fdxkit/mock` with `requireUserTokens: true`, in a process of its own) with the end user's id token: given as a static string, and through `connections.token(id)` of `createConnections` over a memory store, as `client.withOptions({ token })` takes it. " +
        `The server checks the same id token either way. ${c.warmup} warm-up calls each, then ${c.rounds} interleaved rounds of ${c.callsPerRound} calls (${c.calls} timed calls each); *vs static token* is the median of the per-round ratios. ` +
        `The store was read **${c.storeReadsDuringTimedCalls}** times during the timed calls (the hot path keeps the connection in memory until its refresh time).`,
      "",
    );
    out.push(
      table(
        ["token", "median", "vs static token", "pooled", "CPU per call", "CPU vs static token"],
        c.contenders.map((k) => [
          k.sdk ? `**${k.name}**` : k.name,
          `${k.medianUs} µs`,
          x(k.medianRatio),
          x(k.pooledMedianRatio),
          `${k.cpuUs} µs`,
          x(k.cpuRatio),
        ]),
      ),
    );
  }
  if (results.storeSeal) {
    const k = results.storeSeal;
    out.push("", "## Connections: what sealing costs a refresh", "");
    out.push(
      "One connection written (`compareAndSet` of the next version) and read back (`get`), through `encryptConnectionStore` (AES-256-GCM, three tokens re-sealed on every write, bound to the row's version and columns) and on the bare memory store. " +
        `${k.warmup} warm-up operations each, then ${k.rounds} interleaved rounds of ${k.opsPerRound}; medians per operation. A refresh is two writes (the lease, then the tokens) and one read: the re-seal adds **${k.resealPerRefreshUs} µs** per refresh.`,
      "",
    );
    out.push(
      table(
        ["store", "compareAndSet", "get", "per refresh", "write vs bare"],
        k.contenders.map((c) => [c.name, `${c.writeUs} µs`, `${c.readUs} µs`, `${c.refreshUs} µs`, x(c.writeRatio)]),
      ),
    );
  }
  if (results.connectionsRefresh) {
    const r = results.connectionsRefresh;
    out.push("", "## Connections: refreshed by several processes on PostgreSQL", "");
    if (r.skipped) out.push(`Did not run: ${r.skipped}.`);
    else {
      out.push(
        `${r.connections} connections in one real PostgreSQL server (\`postgresConnectionStore\` on node-postgres, a pool of ${r.poolSize} per process), ${r.processes} processes on the built packages, each asking every connection, ${r.concurrency} at a time and all in the same order, for a token other than the id token they all read at the start (as after a 401), so the processes contend for each connection at once; default \`leaseMs\` (30 s, so a waiter polls every 250 ms). ` +
          "*Refreshes per connection* counts the sandbox IdP's refreshes, *conflicts* the spent refresh tokens it was sent (`refreshesRejected`). " +
          "*Crash window* is, for each refresh, the time from the IdP's answer in hand to the store's write of the new pair done: a process that dies inside it loses the pair (docs/connections.md, the crash window). " +
          `Under the contention above it includes the wait for a pooled database connection; *alone* is the same for ${r.crashWindowSequentialMs.samples} refreshes made one at a time by one process afterwards.`,
        "",
      );
      out.push(
        table(
          ["wall time", "per process", "refreshes per connection", "conflicts", "failed calls", "refreshed by process"],
          [
            [
              `${r.wallMs} ms`,
              r.perProcessMs.map((ms) => `${ms} ms`).join(", "),
              `${r.refreshesPerConnection}`,
              `${r.conflicts}`,
              `${r.failedCalls}`,
              r.refreshedByProcess.join(", "),
            ],
          ],
        ),
      );
      out.push(
        "",
        table(
          ["crash window", "median", "p99", "max"],
          [
            [`${r.processes} processes contending`, `${r.crashWindowMs.median} ms`, `${r.crashWindowMs.p99} ms`, `${r.crashWindowMs.max} ms`],
            [
              "alone (one refresh at a time)",
              `${r.crashWindowSequentialMs.median} ms`,
              `${r.crashWindowSequentialMs.p99} ms`,
              `${r.crashWindowSequentialMs.max} ms`,
            ],
          ],
        ),
      );
    }
  }
  if (results.cliStore) {
    const c = results.cliStore;
    const ms = (v) => (typeof v === "object" ? `${v.medianMs} ms (${v.minMs}–${v.maxMs}, ${v.samples} runs)` : v);
    out.push("", "## The CLI's embedded store: start-up", "");
    out.push(
      "Each figure from fresh processes, interleaved, median (min–max). *connections list* is the whole `fdxkit connections list` process as a user waits for it, on an existing embedded (PGlite) store and with `--store postgres://` on a real server started for the run. " +
        "*New store* is the same command on a new directory (what the first `connect` pays for its store): from the template prepared once per machine, and on a machine with no template yet (initdb, then the template is saved). " +
        "*Opened in a process* is from the import to the table ready: `openPGlite` vs a plain `PGlite.create` (what fdxkit did before), in memory (what a test opening an in-memory store pays) and on the existing directory.",
      "",
    );
    const rows = [
      ["connections list, embedded store", ms(c.list.embedded)],
      ["connections list, --store postgres://", ms(c.list.postgres)],
      ...(c.list.addedMs !== undefined ? [["**embedded store adds**", `**${c.list.addedMs} ms**`]] : []),
      ["connections list, new store (template cached)", ms(c.newStore)],
      ...(c.newStoreNoTemplate ? [["connections list, new store, first run on the machine (initdb)", ms(c.newStoreNoTemplate)]] : []),
      ["opened in a process, in memory: openPGlite", ms(c.memory.openPGlite)],
      ...(c.memory.plainCreate ? [["opened in a process, in memory: PGlite.create (before)", ms(c.memory.plainCreate)]] : []),
      ["opened in a process, existing directory: openPGlite", ms(c.existingDir.openPGlite)],
      ...(c.existingDir.plainCreate ? [["opened in a process, existing directory: PGlite.create (before)", ms(c.existingDir.plainCreate)]] : []),
    ];
    out.push(table(["what", "time"], rows));
    if (c.firstTouchMsPerMb !== undefined) {
      out.push(
        "",
        `Memory touched for the first time cost ${c.firstTouchMsPerMb} ms a MB on this machine in this run (64 MB filled in a fresh process, median). ` +
          "The embedded store touches about 70 MB more than the `postgres://` path, so that figure, more than the processor, makes its start-up differ from one machine to the next.",
      );
    }
  }
  if (results.rateBudget) out.push("", ...rateBudgetMarkdown(results.rateBudget));
  if (results.bundle) {
    const b = results.bundle;
    out.push("", "## Browser bundle size", "");
    out.push(
      `The same typical use (client with a token function, statements paged, each PDF downloaded as a Blob, an unauthorized error branched on) written with each library; ${b.method}.`,
      "",
    );
    out.push(
      table(
        ["library", "min", "min+gzip", "loaded on demand (gzip)"],
        b.entries.map((e) => [e.sdk ? `**${e.name}**` : e.name, kB(e.minBytes), kB(e.gzipBytes), e.lazyGzipBytes ? kB(e.lazyGzipBytes) : "—"]),
      ),
    );
  }
  if (results.importTime) {
    const i = results.importTime;
    out.push("", "## Cold import time", "");
    out.push(`\`await import(…)\` timed inside a fresh \`node\` process (start-up excluded), median of ${i.runs} interleaved runs.`, "");
    out.push(
      table(
        ["module", "median", "vs openapi-fetch"],
        i.modules.map((m) => [m.sdk ? `**${m.name}**` : m.name, `${m.ms} ms`, x(m.vsOpenapiFetch)]),
      ),
    );
  }
  if (results.webhooks) {
    const w = results.webhooks;
    out.push("", "## Webhook receive throughput, per runtime", "");
    out.push(
      `\`createWebhookHandler\` served by each runtime's own server (\`Bun.serve\`, \`Deno.serve\`, a Worker's \`fetch\` in workerd through miniflare and in edge-runtime; in Node, \`node:http\` with \`toNodeListener\`) against a bare handler that only does \`await request.json()\`, ` +
        `both on the same server in the same process. A keep-alive undici pool posts a ${w.payloadBytes}-byte consent notification, ${w.concurrency} in flight; after ${w.warmupMs / 1000} s of warm-up per handler, ${w.rounds} interleaved rounds of ${w.roundMs} ms per handler, median. ` +
        "The handler does more than parse: it checks the content type, reads the body under `maxBodyBytes`, copies it without prototype-polluting keys and validates it as a notification." +
        (meta.webhooksMeasured
          ? ` Measured in a run of its own on ${meta.webhooksMeasured.date} (load average ${meta.webhooksMeasured.loadAverageAtStart?.[0] ?? "?"} at the start).`
          : ""),
      "",
    );
    out.push(
      table(
        ["runtime", "bare `request.json()`", "**createWebhookHandler**", "handler vs bare"],
        w.runtimes.map((r) => [
          r.version ?? r.runtime,
          r.error ? "—" : `${r.bareRps} req/s`,
          r.error ? `did not run: ${r.error}` : `${r.sdkRps} req/s`,
          r.error ? "—" : x(r.ratio),
        ]),
      ),
    );
  }
  if (results.webhooksTls) {
    const w = results.webhooksTls;
    out.push("", "## Webhook receive throughput, mutual TLS vs plain TLS", "");
    out.push(
      `The same \`createWebhookHandler\` in one Node ${w.node} process, over plain TLS (\`node:https\` with \`toNodeListener\`, no client certificate) and over mutual TLS (\`createWebhookServer\`, a client certificate required and pinned by fingerprint); P-256 keys. ` +
        `A ${w.payloadBytes}-byte notification, ${w.concurrency} in flight, from a keep-alive undici pool (the handshake paid once per connection) or with a new connection per delivery (a full handshake each time); after ${w.warmupMs / 1000} s of warm-up per case, ${w.rounds} interleaved rounds of ${w.roundMs} ms, median.`,
      "",
    );
    out.push(
      table(
        ["connections", "plain TLS", "**mutual TLS**", "mutual vs plain"],
        w.modes.map((m) => [m.mode, `${m.plainRps} req/s`, `${m.mutualRps} req/s`, x(m.ratio)]),
      ),
    );
  }
  out.push("");
  return out.join("\n");
}

export function printSummary(results) {
  console.log("\nTargets");
  console.table(Object.fromEntries(results.targets.map((t) => [t.target, { limit: t.limit, measured: t.measured, met: t.met ? "✔" : "✘" }])));
  if (results.overhead) {
    console.log("Per-call overhead");
    console.table(
      Object.fromEntries(
        results.overhead.contenders.map((c) => [
          c.name,
          {
            median: `${c.medianUs} µs`,
            p99: `${c.p99Us} µs`,
            "median ×": c.medianRatio,
            "vs same signal ×": c.vsTimeoutSignal,
            "p99 ×": c.p99Ratio,
            "CPU ×": c.cpuRatio,
            [`×${results.overhead.concurrency} ×`]: c.concurrentRatio,
          },
        ]),
      ),
    );
  }
  if (results.pagination) {
    const p = results.pagination;
    console.log(
      `Pagination: hand loop ${p.handLoopMs} ms, with a timeout signal ${p.handLoopSignalMs} ms, fdxkit ${p.sdkMs} ms (${x(p.ratio)}, ${x(p.vsTimeoutSignal)} vs the same signal), node:http floor ${p.nodeHttpMs} ms (${x(p.nodeHttpRatio)}; fdxkit ${x(p.vsNodeHttp)} of it); slow consumer sequential ${p.slowConsumer.sequentialMs} ms, prefetch ${p.slowConsumer.prefetchMs} ms (${x(p.slowConsumer.speedup)} faster)`,
    );
  }
  if (results.download) {
    console.log("Download");
    console.table(
      Object.fromEntries(
        results.download.scenarios.map((s) => [
          s.name,
          { ms: s.ms, "vs fetch": s.vsFetch, "vs http": s.vsHttp, "RSS rise MiB": s.rssRiseMiB, "held MiB": s.heldRiseMiB, "cold RSS MiB": s.coldRssRiseMiB },
        ]),
      ),
    );
  }
  if (results.export) {
    console.log(`Bulk export (bound ${results.export.boundMs} ms for ${results.export.requests} requests)`);
    console.table(
      Object.fromEntries(
        results.export.contenders.map((c) => [
          c.name,
          {
            "export ms": c.exportMs,
            "wall ms": c.wallMs,
            efficiency: c.efficiency,
            failed: c.failed,
            "429s": c.rateLimited,
            pauses: c.pauses,
            pace: c.pace ? `${c.pace.requests}/${c.pace.windowMs} ms` : null,
          },
        ]),
      ),
    );
  }
  if (results.bundle) {
    console.log("Bundle (up front, min+gzip)");
    console.table(Object.fromEntries(results.bundle.entries.map((e) => [e.name, { min: kB(e.minBytes), gzip: kB(e.gzipBytes) }])));
  }
  if (results.webhooks) {
    console.log("Webhook receive throughput");
    console.table(
      Object.fromEntries(
        results.webhooks.runtimes.map((r) => [
          r.version ?? r.runtime,
          r.error ? { error: r.error } : { "bare req/s": r.bareRps, "handler req/s": r.sdkRps, "handler ×": r.ratio },
        ]),
      ),
    );
  }
  if (results.webhooksTls) {
    console.log("Webhook receive throughput, mutual TLS vs plain TLS");
    console.table(
      Object.fromEntries(
        results.webhooksTls.modes.map((m) => [m.mode, { "plain TLS req/s": m.plainRps, "mutual TLS req/s": m.mutualRps, "mutual ×": m.ratio }]),
      ),
    );
  }
  if (results.connections) {
    console.log(`connections.token(id) hot path (store reads during the timed calls: ${results.connections.storeReadsDuringTimedCalls})`);
    console.table(
      Object.fromEntries(
        results.connections.contenders.map((c) => [
          c.name,
          { median: `${c.medianUs} µs`, "vs static ×": c.medianRatio, "pooled ×": c.pooledMedianRatio, "CPU ×": c.cpuRatio },
        ]),
      ),
    );
  }
  if (results.storeSeal) {
    console.log(`The re-seal per refresh (two writes and a read): +${results.storeSeal.resealPerRefreshUs} µs`);
    console.table(
      Object.fromEntries(
        results.storeSeal.contenders.map((c) => [
          c.name,
          { write: `${c.writeUs} µs`, read: `${c.readUs} µs`, "per refresh": `${c.refreshUs} µs`, "write ×": c.writeRatio },
        ]),
      ),
    );
  }
  if (results.connectionsRefresh) {
    const r = results.connectionsRefresh;
    if (r.skipped) console.log(`Connections refreshed on PostgreSQL: did not run (${r.skipped})`);
    else {
      console.log(
        `Connections refreshed on PostgreSQL: ${r.connections} by ${r.processes} processes in ${r.wallMs} ms; refreshes per connection ${r.refreshesPerConnection}, conflicts ${r.conflicts}, failed calls ${r.failedCalls}, ` +
          `refreshed by process ${r.refreshedByProcess.join("/")}; crash window median ${r.crashWindowMs.median} ms, p99 ${r.crashWindowMs.p99} ms, max ${r.crashWindowMs.max} ms (${r.crashWindowMs.samples} refreshes), ` +
          `alone median ${r.crashWindowSequentialMs.median} ms, p99 ${r.crashWindowSequentialMs.p99} ms, max ${r.crashWindowSequentialMs.max} ms (${r.crashWindowSequentialMs.samples} refreshes)`,
      );
    }
  }
  for (const r of results.rateBudget?.rows ?? []) {
    console.log(
      `Rate budget, ${r.mode}: ${r.rateLimited} 429s (${percent(r.rateLimitedShare)}), efficiency ${r.efficiency.toFixed(2)}, user p95 ${Math.round(r.during.p95)} ms vs idle ${Math.round(r.idle.p95)} ms, last shard alone used ${r.tailUse.toFixed(2)} of the limit`,
    );
  }
  if (results.cliStore) {
    const c = results.cliStore;
    console.log(
      `CLI embedded store: connections list ${c.list.embedded.medianMs} ms vs postgres:// ${typeof c.list.postgres === "object" ? `${c.list.postgres.medianMs} ms (adds ${c.list.addedMs} ms)` : c.list.postgres}; new store ${c.newStore.medianMs} ms; first touch ${c.firstTouchMsPerMb} ms/MB; in-memory openPGlite ${c.memory.openPGlite.medianMs} ms${c.memory.plainCreate ? ` (PGlite.create ${c.memory.plainCreate.medianMs} ms)` : ""}`,
    );
  }
  if (results.importTime) {
    console.log("Cold import");
    console.table(Object.fromEntries(results.importTime.modules.map((m) => [m.name, { ms: m.ms, "vs openapi-fetch": m.vsOpenapiFetch }])));
  }
}

const MODES = {
  none: "no budget (each export paces itself from its 429s)",
  memory: "a memory budget in each process",
  postgres: "one PostgreSQL budget for all (the export leaves the CLI's default reserve, 0.9 of a request, for users)",
  "postgres-fifth": "the same, with the budget's own default reserve, a fifth of the burst (`--rate-limit 18/2/0.4`)",
};

/** The rate-budget section: one row per way of sharing the provider's limit. */
function rateBudgetMarkdown(rb) {
  const ms = (n) => `${Math.round(n)} ms`;
  const out = ["## One rate budget per provider, shared by every process", ""];
  out.push(
    `The sandbox (a real HTTP server) allows sandbox-bank ${rb.limit} statement calls a second, in fixed windows. Four \`fdxkit statements export --shard I/4 --concurrency 8\` processes export every seeded account from ${rb.range.from} to ${rb.range.to} ` +
      "(skewed: the shards hold " +
      (rb.rows[0]?.shards.map((s) => s.listed).join(", ") ?? "?") +
      ' statements), beside a web process making a user call (`actorType: "user"`, one statement page) every 200 ms. ' +
      "Budgets are sized as the docs say, burst 2: one shared budget gets the whole limit, `(L − burst) / W` = 18 a second; without a shared store each of the 5 processes gets `(L − 5 × burst) / 5` = 2 a second. " +
      "The export leaves the CLI's default reserve for users, 0.9 of a request with burst 2 (a user call seldom waits for a token, and the export keeps a tenth of one of room for when it is late to take the next); the last row leaves the budget's own default, a fifth of the burst, as the CLI did before. " +
      "*Efficiency* is the time the provider's limit bounds the work to (the calls it admitted while the export ran, every process's, at 20 a second) over the export's time (from the moment every shard was up to the last one's summary). " +
      "*Last shard alone* is the share of the limit the provider served once every other shard with work had ended: a shard that gives its share back leaves none idle. " +
      "User latency is the web process's calls while the export ran against its calls before it started (idle), with the same budget.",
    "",
  );
  if (rb.skipped) out.push(`The PostgreSQL rows did not run: ${rb.skipped}.`, "");
  out.push(
    table(
      [
        "way",
        "budget per process",
        "429s (of calls)",
        "export time vs limit-bound (efficiency)",
        "user calls median / p95, idle → during",
        "last shard alone: time, share of the limit used",
      ],
      rb.rows.map((r) => [
        MODES[r.mode],
        r.budget ? `${r.budget.perSecond}/s, burst ${r.budget.burst}${r.budget.reserve === undefined ? "" : `, reserve ${r.budget.reserve}`}` : "none",
        `${r.rateLimited} of ${r.requests} (${percent(r.rateLimitedShare)})`,
        `${(r.exportMs / 1000).toFixed(1)} s vs ${(r.idealMs / 1000).toFixed(1)} s (${r.efficiency.toFixed(3)})`,
        `${ms(r.idle.median)} / ${ms(r.idle.p95)} → ${ms(r.during.median)} / ${ms(r.during.p95)}${r.during.unanswered ? ` (${r.during.unanswered} of ${r.during.calls} still waiting at the end)` : ""}`,
        `${(r.tailMs / 1000).toFixed(1)} s, ${r.tailUse.toFixed(2)}`,
      ]),
    ),
  );
  return out;
}
