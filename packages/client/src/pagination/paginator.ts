import { OutgoingRequest } from "../internal/outgoing.js";
import { FdxValidationError } from "../core/errors/index.js";
import type { RequestOptions } from "../core/options.js";
import { sendRead, type Pipeline } from "../internal/pipeline.js";
import type { Statement } from "../models.js";
import { anySignal } from "../internal/signals.js";
import { refuseLink, resolveHref } from "./links.js";
import { readPage, type StatementPage } from "./page.js";
import type { ReadResponse } from "../internal/transport.js";
import type { ListRequest } from "./params.js";

/** Options of `statements.list`: the usual per-request options, applied to every page, and `prefetch`. */
export interface StatementListOptions extends RequestOptions {
  /**
   * Pages requested ahead while the consumer works on the current one. `0`
   * (the default) requests a page only when the consumer needs it; `1`
   * overlaps the next request with processing, for bulk jobs. A prefetched
   * page that is not consumed (`break`) is cancelled.
   */
  prefetch?: 0 | 1;
}

/**
 * The statements of an account across all pages. Nothing is requested until
 * iteration starts, and each iteration starts again from the first page.
 *
 * @example
 * for await (const statement of client.statements.list({ providerId, accountId })) { … }
 * for await (const page of client.statements.list(params).pages()) { page.statements; page.nextHref }
 * const first500 = await client.statements.list(params).toArray({ max: 500 });
 */
export interface StatementPaginator extends AsyncIterable<Statement> {
  /** Statement after statement; the next page is requested when the current one runs out. `break` stops all requests. */
  [Symbol.asyncIterator](): AsyncIterator<Statement>;
  /** Page after page, with the server's links. */
  pages(): AsyncIterableIterator<StatementPage>;
  /** Collects statements, stopping (and requesting no further page) once `max` are collected. */
  toArray(options?: { max?: number }): Promise<Statement[]>;
}

interface Loaded {
  /** The absolute URL requested for the page. */
  url: string;
  page: StatementPage;
}

/** Builds the paginator for checked parameters. Makes no request. */
export function createStatementPaginator(p: Pipeline, request: ListRequest, options: StatementListOptions = {}): StatementPaginator {
  const { prefetch = 0, ...requestOptions } = options;
  if (prefetch !== 0 && prefetch !== 1) {
    throw new FdxValidationError([{ path: "prefetch", message: "must be 0 or 1" }]);
  }
  const pages = () => walk(p, request, requestOptions, prefetch === 1);
  // A plain iterator rather than an async generator with `yield*`: a
  // generator costs several promise turns per statement, this one costs one.
  function statements(): AsyncIterator<Statement> & AsyncIterable<Statement> {
    const source = pages();
    let current: Statement[] = [];
    let index = 0;
    const iterator: AsyncIterator<Statement> & AsyncIterable<Statement> = {
      async next() {
        while (index >= current.length) {
          const result = await source.next();
          if (result.done) return { done: true, value: undefined };
          current = result.value.statements;
          index = 0;
        }
        return { done: false, value: current[index++]! };
      },
      async return() {
        await source.return(undefined);
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }
  return {
    [Symbol.asyncIterator]: statements,
    pages,
    async toArray({ max } = {}) {
      if (max !== undefined && !(Number.isSafeInteger(max) && max >= 0)) {
        throw new FdxValidationError([{ path: "max", message: "must be an integer >= 0" }]);
      }
      const out: Statement[] = [];
      if (max === 0) return out;
      for await (const statement of statements()) {
        out.push(statement);
        if (out.length === max) break;
      }
      return out;
    },
  };
}

async function* walk(
  p: Pipeline,
  request: ListRequest,
  options: RequestOptions,
  prefetch: boolean,
): AsyncGenerator<StatementPage, void, undefined> {
  // Every URL requested in this iteration, the first page's included: a link back to any of them is a loop.
  const requested = new Set<string>();
  // With prefetch, a page may be in flight when the consumer stops: this cancels it.
  const ahead = prefetch ? new AbortController() : undefined;
  const sendOptions = ahead ? { ...options, signal: anySignal(options.signal, ahead.signal) } : options;

  let load: (() => Promise<Loaded>) | undefined = () => loadFirst(p, request, sendOptions, requested);
  let pending: Promise<Loaded> | undefined;
  let previousUrl: string | undefined;
  try {
    while (load || pending) {
      const { url, page }: Loaded = await (pending ?? load!());
      pending = undefined;
      const nextHref: string | undefined = page.nextHref;
      load = nextHref === undefined ? undefined : () => loadNext(p, nextHref, sendOptions, requested);
      if (ahead && load) {
        pending = load();
        // Its failure belongs to the consumer's next step; until then it must not count as unhandled.
        pending.catch(() => {});
        load = undefined;
      }
      const prevHref = page.prevHref ?? previousUrl;
      previousUrl = url;
      yield { ...page, prevHref };
    }
  } finally {
    if (pending) ahead?.abort();
  }
}

async function loadFirst(p: Pipeline, request: ListRequest, options: RequestOptions, requested: Set<string>): Promise<Loaded> {
  let url = "";
  const { response } = await p.statements.GET("/statements/{version}/{providerId}/{accountId}", {
    params: { path: { version: p.versions.statements, ...request.path }, query: request.query },
    headers: { Accept: "application/json" },
    parseAs: "stream",
    fetch: (req: Request) => {
      url = req.url;
      requested.add(url);
      return sendRead(p, req, options);
    },
  });
  return { url, page: await readPage(p, response as unknown as ReadResponse, url, options.signal) };
}

async function loadNext(p: Pipeline, href: string, options: RequestOptions, requested: Set<string>): Promise<Loaded> {
  const url = resolveHref(href, p.productsUrl).href;
  if (requested.has(url)) {
    throw refuseLink(href, `${url} was already requested (a loop)`);
  }
  requested.add(url);
  const response = await p.transport.send(new OutgoingRequest(url, { headers: { Accept: "application/json" } }), options, { readBody: true });
  return { url, page: await readPage(p, response, url, options.signal) };
}
