// Per-call overhead: one GET of a consent grant, parsed JSON in hand, through
// each way a Node user could make it. Same URL, same headers
// (Authorization + Accept), same body, same keep-alive server in another
// process. Calls run one at a time (latency, not throughput), in interleaved
// rounds after a warm-up, and every call is timed on its own.
import http from "node:http";
import { performance } from "node:perf_hooks";
import { createClient } from "@fdxkit/client";
import createOpenApiClient from "openapi-fetch";
import axios from "axios";
import ky from "ky";
import { request as undiciRequest } from "undici";
import { CONSENT_ID, TOKEN } from "./server.mjs";
import { median, pairedRatio, quantile, ratio, rotate, round } from "./stats.mjs";

const headers = { Authorization: `Bearer ${TOKEN}`, Accept: "application/json" };
const keepAlive = new http.Agent({ keepAlive: true });

/** A keep-alive node:http GET, body gathered and JSON.parse'd: the floor a Node transport can reach. */
export function httpGetJson(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: keepAlive }, (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
          } catch (error) {
            reject(error);
          }
        });
        res.on("error", reject);
      })
      .on("error", reject);
  });
}

/** Each contender: a function making one call and resolving with the parsed consent grant. */
export function contenders(origin) {
  const url = `${origin}/consents/v1/${CONSENT_ID}`;
  // In Node, @fdxkit/client resolves to the entry with Node's own transport (node:http); `fetch` given restores fetch.
  const sdk = createClient({ baseUrl: origin, token: TOKEN });
  const sdkFetch = createClient({ baseUrl: origin, token: TOKEN, fetch: globalThis.fetch });
  const sdkValidating = createClient({ baseUrl: origin, token: TOKEN, validateResponses: true });
  const openapi = createOpenApiClient({ baseUrl: origin, headers });
  const axiosClient = axios.create({ headers });
  const kyClient = ky.create({ headers, retry: 0 });
  return [
    { name: "raw fetch + res.json()", baseline: true, call: () => fetch(url, { headers }).then((res) => res.json()) },
    {
      // What a raw-fetch user writes to get a timeout like the SDK's: undici then follows the signal (a
      // listener, a finalizer), which costs ~20–30 µs a call on Node 20 whatever sets it up.
      name: "raw fetch + res.json(), with a 30 s timeout signal",
      signalBaseline: true,
      call: () => {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), 30_000);
        return fetch(url, { headers, signal: controller.signal })
          .then((res) => res.json())
          .finally(() => clearTimeout(timer));
      },
    },
    { name: "node:http keep-alive + JSON.parse", call: () => httpGetJson(url) },
    { name: "undici.request (lower bound)", call: () => undiciRequest(url, { headers }).then((res) => res.body.json()) },
    {
      name: "openapi-fetch",
      call: () => openapi.GET("/consents/{version}/{consentId}", { params: { path: { version: "v1", consentId: CONSENT_ID } } }).then((r) => r.data),
    },
    { name: "axios", call: () => axiosClient.get(url).then((res) => res.data) },
    { name: "ky", call: () => kyClient.get(url).json() },
    { name: "fdxkit consents.get", sdk: true, call: () => sdk.consents.get(CONSENT_ID) },
    { name: "fdxkit consents.get, fetch transport (fetch: globalThis.fetch)", sdk: true, call: () => sdkFetch.consents.get(CONSENT_ID) },
    { name: "fdxkit consents.get, validateResponses", sdk: true, call: () => sdkValidating.consents.get(CONSENT_ID) },
  ];
}

/**
 * Rounds are short and interleaved, and each contender's ratio is taken per
 * round against the baseline of the same round, then the median of those:
 * on a shared 2-core machine the pace drifts from one second to the next, and
 * a pooled median mixes that drift into the ratio. The client's own CPU time
 * per call (`process.cpuUsage`) is reported beside the latency: on loopback
 * every microsecond the client spends lets the server fall asleep, so latency
 * grows by about twice the client's extra work (the README's Benchmarks
 * section shows how that was measured).
 *
 * @param {{ origin: string, warmup: number, rounds: number, callsPerRound: number }} config
 */
export async function runOverhead({ origin, warmup, rounds, callsPerRound }) {
  const list = contenders(origin);
  const samples = new Map(list.map((c) => [c.name, []]));
  const roundMedians = new Map(list.map((c) => [c.name, []]));
  const roundCpu = new Map(list.map((c) => [c.name, []]));

  for (const c of list) {
    const first = await c.call();
    if (first?.id !== CONSENT_ID) throw new Error(`${c.name} did not return the consent grant`);
    for (let i = 1; i < warmup; i++) await c.call();
  }
  for (let r = 0; r < rounds; r++) {
    for (const c of rotate(list, r)) {
      const out = samples.get(c.name);
      const times = [];
      const cpu = process.cpuUsage();
      for (let i = 0; i < callsPerRound; i++) {
        const start = performance.now();
        await c.call();
        times.push(performance.now() - start);
      }
      const used = process.cpuUsage(cpu);
      out.push(...times);
      roundMedians.get(c.name).push(median(times));
      roundCpu.get(c.name).push((used.user + used.system) / callsPerRound);
    }
  }

  // The same calls eight at a time: the server never sleeps between them, so
  // this shows the client's own cost without loopback's wake-up penalty.
  const concurrency = 8;
  const perBurst = callsPerRound * 2;
  const roundRps = new Map(list.map((c) => [c.name, []]));
  for (let r = 0; r < Math.ceil(rounds / 2); r++) {
    for (const c of rotate(list, r)) {
      let left = perBurst;
      const start = performance.now();
      const worker = async () => {
        while (left-- > 0) await c.call();
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      roundRps.get(c.name).push(perBurst / ((performance.now() - start) / 1000));
    }
  }

  const baseline = list.find((c) => c.baseline).name;
  const signalled = list.find((c) => c.signalBaseline).name;
  const base = samples.get(baseline);
  const baseMedian = median(base);
  const baseP99 = quantile(base, 0.99);
  const baseCpu = median(roundCpu.get(baseline));
  const paired = (name, against) => pairedRatio(roundMedians.get(name), roundMedians.get(against));
  return {
    concurrency,
    calls: rounds * callsPerRound,
    rounds,
    callsPerRound,
    warmup,
    contenders: list.map((c) => {
      const s = samples.get(c.name);
      const med = median(s);
      const p99 = quantile(s, 0.99);
      const cpuUs = median(roundCpu.get(c.name));
      return {
        name: c.name,
        sdk: Boolean(c.sdk),
        baseline: Boolean(c.baseline),
        medianUs: round(med * 1000),
        p99Us: round(p99 * 1000),
        // The median of per-round ratios (paired with the baseline's round): the figure the target reads.
        medianRatio: paired(c.name, baseline),
        pooledMedianRatio: ratio(med, baseMedian),
        vsTimeoutSignal: paired(c.name, signalled),
        p99Ratio: ratio(p99, baseP99),
        cpuUs: round(cpuUs),
        cpuRatio: ratio(cpuUs, baseCpu),
        // Throughput at `concurrency`, as time per call relative to raw fetch's (paired per round, like medianRatio).
        concurrentRps: round(median(roundRps.get(c.name)), 0),
        concurrentRatio: pairedRatio(roundRps.get(baseline), roundRps.get(c.name)),
      };
    }),
  };
}
