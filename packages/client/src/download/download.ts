import { providerOf } from "../internal/budget.js";
import { FdxValidationError } from "../core/error.js";
import type { RequestOptions } from "../core/options.js";
import type { Context } from "../internal/context.js";
import { integerMessage, isIntegerAtLeast } from "../internal/checks.js";
import { isHeaderValue } from "../internal/headers.js";
import { request } from "../internal/request.js";
import { toDocument, type StatementDocument } from "./document.js";
import { targetUrl, type DownloadTarget } from "./target.js";

/** Options of `statements.download`. */
export interface DownloadOptions extends RequestOptions {
  /** The wanted media type, sent as `Accept` and used to pick among the statement's links. Default `application/pdf`. */
  accept?: string;
}

export async function downloadStatement(ctx: Context, target: DownloadTarget, options: DownloadOptions = {}): Promise<StatementDocument> {
  const { accept = "application/pdf", maxDownloadBytes = ctx.maxDownloadBytes, ...requestOptions } = options;
  if (!isIntegerAtLeast(maxDownloadBytes, 1)) throw new FdxValidationError([{ path: "maxDownloadBytes", message: integerMessage(1) }]);
  if (typeof accept !== "string" || accept.trim() === "") {
    throw new FdxValidationError([{ path: "accept", message: "must be a non-empty media type" }]);
  }
  if (!isHeaderValue(accept)) throw new FdxValidationError([{ path: "accept", message: "is not a valid HTTP header value" }]);
  const url = targetUrl(ctx, target, accept);
  // The explicit `accept` wins over an Accept in `headers`; without it, `headers` may override the default.
  if (options.accept !== undefined) requestOptions.headers = { ...requestOptions.headers, accept };
  const providerId = ctx.rateBudget ? (requestOptions.providerId ?? providerOf(ctx.productsUrl, url)) : undefined;
  const { response, interactionId, secrets } = await request(ctx, { method: "GET", url, accept, options: requestOptions, product: true, providerId }, "stream");
  // The attempt's timeout ends with the headers; then each wait for a chunk has as long, and the caller's signal still cancels the stream.
  const { signal, timeoutMs = ctx.timeoutMs } = requestOptions;
  return toDocument(response, { signal, url, status: response.status, interactionId, maxBytes: maxDownloadBytes, stallMs: timeoutMs, secrets });
}
