import type { Context } from "../internal/context.js";
import { downloadStatement, type DownloadOptions } from "../download/download.js";
import type { StatementDocument } from "../download/document.js";
import type { DownloadTarget } from "../download/target.js";
import { createStatementPaginator, type StatementListOptions, type StatementPaginator } from "../pagination/paginator.js";
import { toListRequest, type StatementListParams } from "../pagination/params.js";

/** `client.statements`: an account's statements, and their documents. */
export interface StatementsResource {
  /**
   * The account's statements, page after page (GET `{productsUrl}/statements/{v}/{providerId}/{accountId}`, then the
   * server's `links.next.href`). Synchronous and lazy: nothing is requested until you iterate.
   *
   * @throws FdxValidationError at once for bad parameters (nothing is sent).
   */
  list(params: StatementListParams, options?: StatementListOptions): StatementPaginator;
  /**
   * Downloads a statement document (PDF unless `accept` says otherwise) as a stream. Links are only followed on the
   * origin of `productsUrl`.
   *
   * @throws FdxValidationError for a target without a usable link, FdxLinkError for a foreign link (nothing is sent).
   */
  download(target: DownloadTarget, options?: DownloadOptions): Promise<StatementDocument>;
}

export function statementsResource(p: Context): StatementsResource {
  return {
    list: (params, options) => createStatementPaginator(p, toListRequest(params), options),
    download: (target, options) => downloadStatement(p, target, options),
  };
}
