// Pagination: every statement of an account, page after page.
// 1. `for await` over the SDK's paginator versus a hand-written fetch loop
//    following `links.next.href` (same pages, same headers), interleaved runs;
//    beside them the same loop on keep-alive node:http, the floor a Node
//    transport can reach (each page's JSON.parse is most of it).
// 2. With a slow consumer (a few ms of awaited work per page, as a job that
//    writes each page to a database would have): sequential pages versus the
//    SDK's opt-in `prefetch: 1`, which overlaps the next request with the work.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "@fdxkit/client";
import { ACCOUNT_ID, PROVIDER_ID, TOKEN, statementsPath } from "./server.mjs";
import { httpGetJson } from "./overhead.mjs";
import { median, pairedRatio, ratio, rotate, round } from "./stats.mjs";

const headers = { Authorization: `Bearer ${TOKEN}`, Accept: "application/json" };

/**
 * The loop a user writes without an SDK. Resolves with the number of
 * statements seen. `timeoutMs`: each request gets a timeout signal, as each
 * SDK request does (undici follows every signal with a listener and a
 * finalizer, which a loop without one does not pay).
 */
async function handLoop(origin, perPage, timeoutMs) {
  let url = `${origin}${statementsPath}?limit=${perPage}`;
  let seen = 0;
  while (url) {
    const controller = timeoutMs === undefined ? undefined : new AbortController();
    const timer = controller && setTimeout(() => controller.abort(), timeoutMs);
    let body;
    try {
      const res = await fetch(url, { headers, signal: controller?.signal });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      body = await res.json();
    } finally {
      clearTimeout(timer);
    }
    for (const statement of body.statements ?? []) if (statement.statementId) seen++;
    const href = body.links?.next?.href;
    url = href ? new URL(href, origin).href : undefined;
  }
  return seen;
}

/** The hand loop on node:http: no timeout, no checks, nothing but the pages. */
async function httpLoop(origin, perPage) {
  let url = `${origin}${statementsPath}?limit=${perPage}`;
  let seen = 0;
  while (url) {
    const body = await httpGetJson(url);
    for (const statement of body.statements ?? []) if (statement.statementId) seen++;
    const href = body.links?.next?.href;
    url = href ? new URL(href, origin).href : undefined;
  }
  return seen;
}

async function sdkLoop(client, perPage) {
  let seen = 0;
  for await (const statement of client.statements.list({ providerId: PROVIDER_ID, accountId: ACCOUNT_ID, limit: perPage })) {
    if (statement.statementId) seen++;
  }
  return seen;
}

async function slowConsumer(client, perPage, workMs, prefetch) {
  let pages = 0;
  const paginator = client.statements.list({ providerId: PROVIDER_ID, accountId: ACCOUNT_ID, limit: perPage }, { prefetch });
  for await (const page of paginator.pages()) {
    pages++;
    await sleep(workMs); // the consumer's own async work on the page
    if (page.statements.length !== perPage) throw new Error("short page");
  }
  return pages;
}

async function timeRuns(runs, rounds) {
  const times = new Map(runs.map((r) => [r.name, []]));
  for (let i = 0; i < rounds; i++) {
    for (const run of rotate(runs, i)) {
      const start = performance.now();
      const got = await run.fn();
      times.get(run.name).push(performance.now() - start);
      if (got !== run.expect) throw new Error(`${run.name}: expected ${run.expect}, got ${got}`);
    }
  }
  return times;
}

/**
 * @param {{ origin: string, pages: number, perPage: number, rounds: number, slowRounds: number, workMs: number }} config
 */
export async function runPagination({ origin, pages, perPage, rounds, slowRounds, workMs }) {
  const client = createClient({ baseUrl: origin, token: TOKEN });
  const total = pages * perPage;

  const fast = [
    { name: "hand-written fetch loop", fn: () => handLoop(origin, perPage), expect: total },
    { name: "hand-written fetch loop, timeout signal", fn: () => handLoop(origin, perPage, 30_000), expect: total },
    { name: "fdxkit for await", fn: () => sdkLoop(client, perPage), expect: total },
    { name: "node:http loop", fn: () => httpLoop(origin, perPage), expect: total },
  ];
  await timeRuns(fast, 1); // warm-up
  const fastTimes = await timeRuns(fast, rounds);
  const [hand, handSignal, sdk, floor] = fast.map((f) => fastTimes.get(f.name));
  const handMs = median(hand);
  const floorMs = median(floor);
  const handSignalMs = median(handSignal);
  const sdkMs = median(sdk);

  const slow = [
    { name: "sequential", fn: () => slowConsumer(client, perPage, workMs, 0), expect: pages },
    { name: "prefetch: 1", fn: () => slowConsumer(client, perPage, workMs, 1), expect: pages },
  ];
  const slowTimes = await timeRuns(slow, slowRounds);
  const seqMs = median(slowTimes.get(slow[0].name));
  const preMs = median(slowTimes.get(slow[1].name));

  return {
    pages,
    perPage,
    statements: total,
    rounds,
    handLoopMs: round(handMs),
    handLoopSignalMs: round(handSignalMs),
    sdkMs: round(sdkMs),
    nodeHttpMs: round(floorMs),
    ratio: pairedRatio(sdk, hand),
    nodeHttpRatio: pairedRatio(floor, hand),
    vsNodeHttp: pairedRatio(sdk, floor),
    pooledRatio: ratio(sdkMs, handMs),
    signalRatio: pairedRatio(handSignal, hand),
    vsTimeoutSignal: pairedRatio(sdk, handSignal),
    perPageUs: {
      handLoop: round((handMs / pages) * 1000),
      handLoopSignal: round((handSignalMs / pages) * 1000),
      sdk: round((sdkMs / pages) * 1000),
      nodeHttp: round((floorMs / pages) * 1000),
    },
    slowConsumer: {
      workMsPerPage: workMs,
      rounds: slowRounds,
      sequentialMs: round(seqMs),
      prefetchMs: round(preMs),
      speedup: ratio(seqMs, preMs),
    },
  };
}
