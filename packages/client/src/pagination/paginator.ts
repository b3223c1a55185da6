import { providerOf } from "../internal/budget.js";
import { integerMessage, isIntegerAtLeast } from "../internal/checks.js";
import { FdxNotFoundError, FdxValidationError } from "../core/error.js";
import type { RequestOptions } from "../core/options.js";
import { anySignal, noop } from "../internal/abort.js";
import { checkResponse, type Context } from "../internal/context.js";
import { buildPath, buildQuery } from "../internal/paths.js";
import { recentSet, seenBits } from "../internal/recent.js";
import { request } from "../internal/request.js";
import type { Statement } from "../models.js";
import { refuseLink, resolveHref } from "./links.js";
import { readPage, type PageBody, type StatementPage } from "./page.js";
import type { ListRequest } from "./params.js";

/** Options of `statements.list`: the usual per-request options, applied to every page, and `prefetch`. */
export interface StatementListOptions extends RequestOptions {
  /**
   * Pages requested ahead while the consumer works on the current one. `0` (the default) requests a page only when
   * the consumer needs it; `1` overlaps the next request with processing, for bulk jobs. A prefetched page that is
   * not consumed (`break`) is cancelled.
   */
  prefetch?: 0 | 1;
}

/**
 * The statements of an account across all pages. Nothing is requested until iteration starts, and each iteration
 * starts again from the first page.
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
  url: string;
  page: PageBody;
  /** The token the page was requested with, in every form: errors about its links must not quote it. */
  secrets: () => readonly string[];
}

/** Pages in a row, each linking to one more, that bring no new statement before a paginator gives up on the provider. */
const MAX_STALE_PAGES = 100;
/** Page URLs remembered per iteration, as hashes: bounded, whatever a provider sends. */
const MAX_REMEMBERED = 100_000;

/** Builds the paginator for checked parameters. Makes no request. */
export function createStatementPaginator(p: Context, request: ListRequest, options: StatementListOptions = {}): StatementPaginator {
  const { prefetch = 0, ...requestOptions } = options;
  if (prefetch !== 0 && prefetch !== 1) {
    throw new FdxValidationError([{ path: "prefetch", message: "must be 0 or 1" }]);
  }
  const pages = () => walk(p, request, requestOptions, prefetch === 1);
  // A plain iterator, not an async generator with `yield*`: a generator costs several promise turns per statement, this one costs one.
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
      if (max !== undefined && !isIntegerAtLeast(max, 0)) throw new FdxValidationError([{ path: "max", message: integerMessage(0) }]);
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

async function* walk(p: Context, request: ListRequest, options: RequestOptions, prefetch: boolean): AsyncGenerator<StatementPage, void, undefined> {
  // A link back to a URL requested in this iteration is a loop; a loop longer than MAX_REMEMBERED still ends, as stale pages.
  const requested = recentSet(MAX_REMEMBERED);
  // A lossy bitmap is enough: a statement taken for one seen before only ever counts toward a stale page.
  const yielded = seenBits();
  // With prefetch, a page may be in flight when the consumer stops: this cancels it.
  const ahead = prefetch ? new AbortController() : undefined;
  const sendOptions = ahead ? { ...options, signal: anySignal(options.signal, ahead.signal) } : options;
  const path = buildPath("/statements/{version}/{providerId}/{accountId}", { version: p.versions.statements, ...request.path });
  const firstUrl = p.productsUrl + path + buildQuery(request.query);

  // FDX code 1108 (404) on the first page means the account has no statements: an empty list. Later it cannot mean that.
  let load: (() => Promise<Loaded | undefined>) | undefined = () =>
    loadPage(p, firstUrl, firstUrl, sendOptions, requested, noSecrets).catch((error: unknown) => {
      if (error instanceof FdxNotFoundError && error.code === "1108") return undefined;
      throw error;
    });
  let pending: Promise<Loaded | undefined> | undefined;
  let previousUrl: string | undefined;
  let stale = 0;
  try {
    while (load || pending) {
      const loaded: Loaded | undefined = await (pending ?? load!());
      if (!loaded) return;
      const { url, page, secrets }: Loaded = loaded;
      pending = undefined;
      let nextHref: string | undefined = page.nextHref;
      let next: string | undefined;
      if (nextHref !== undefined) next = nextHref;
      else if (page.nextOffset !== undefined) {
        // An FDX page object: the first request again, at the offset the provider names.
        next = p.productsUrl + path + buildQuery({ ...request.query, offset: page.nextOffset });
        nextHref = next.slice(p.productsOrigin.length);
      }
      stale = !bringsNew(page.statements, yielded) && next !== undefined ? stale + 1 : 0;
      if (stale >= MAX_STALE_PAGES) {
        throw refuseLink(nextHref!, `${MAX_STALE_PAGES} pages in a row brought no new statement (a provider paging forever)`, secrets());
      }
      load =
        next === undefined
          ? undefined
          : (
              (href) => () =>
                loadPage(p, href, nextHref!, sendOptions, requested, secrets)
            )(next);
      if (ahead && load) {
        pending = load();
        // Its failure belongs to the consumer's next step; until then it must not count as unhandled.
        pending.catch(noop);
        load = undefined;
      }
      const prevHref = page.prevHref ?? previousUrl;
      previousUrl = url;
      yield { statements: page.statements, nextHref, prevHref };
    }
  } finally {
    if (pending) ahead?.abort();
  }
}

const noSecrets = () => [];

/** Notes the page's statements as yielded; true when one was not before. A statement without a string `statementId` is known by its content. */
function bringsNew(statements: Statement[], yielded: (key: string) => boolean): boolean {
  let fresh = false;
  for (const statement of statements) {
    const id = (statement as { statementId?: unknown } | null)?.statementId;
    // The id needs no prefix: ids do not start with NUL, and one that did would at worst make a page look stale.
    if (yielded(typeof id === "string" ? id : `\0${JSON.stringify(statement)}`)) fresh = true;
  }
  return fresh;
}

/** Requests one page: `target` is the server's href or the URL built, `href` what errors quote, `secrets` the linking page's token. */
async function loadPage(
  p: Context,
  target: string,
  href: string,
  options: RequestOptions,
  requested: (url: string) => boolean,
  secrets: () => readonly string[],
): Promise<Loaded> {
  const url = resolveHref(target, p.productsOrigin, secrets).href;
  if (!requested(url)) throw refuseLink(href, `${url} was already requested (a loop)`, secrets());
  const providerId = p.rateBudget ? (options.providerId ?? providerOf(p.productsUrl, url)) : undefined;
  const answer = await request(p, { method: "GET", url, options, product: true, providerId }, "json");
  const { data, status, interactionId } = answer;
  if (p.validateResponses) await checkResponse(data, "statementList", status, interactionId);
  return { url, page: readPage(data, status, interactionId), secrets: answer.secrets };
}
