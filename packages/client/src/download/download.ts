import { OutgoingRequest } from "../internal/outgoing.js";
import { FdxValidationError } from "../core/errors/index.js";
import type { RequestOptions } from "../core/options.js";
import type { Pipeline } from "../internal/pipeline.js";
import { toDocument, type StatementDocument } from "./document.js";
import { targetUrl, type DownloadTarget } from "./target.js";

/** Options of `statements.download`. */
export interface DownloadOptions extends RequestOptions {
  /** The wanted media type, sent as `Accept` and used to pick among the statement's links. Default `application/pdf`. */
  accept?: string;
}

export async function downloadStatement(p: Pipeline, target: DownloadTarget, options: DownloadOptions = {}): Promise<StatementDocument> {
  const { accept = "application/pdf", ...requestOptions } = options;
  if (typeof accept !== "string" || accept.trim() === "") {
    throw new FdxValidationError([{ path: "accept", message: "must be a non-empty media type" }]);
  }
  const url = targetUrl(p, target, accept);
  // The explicit `accept` wins over an Accept in `headers`; without it, `headers` may override the default.
  const headers = options.accept === undefined ? requestOptions.headers : { ...requestOptions.headers, Accept: accept };
  let request: OutgoingRequest;
  try {
    request = new OutgoingRequest(url, { headers: { Accept: accept } });
  } catch {
    throw new FdxValidationError([{ path: "accept", message: "is not a valid HTTP header value" }]);
  }
  // No body buffering: the timeout ends with the headers, the caller's signal still cancels the stream.
  const response = await p.transport.send(request, { ...requestOptions, headers });
  return toDocument(response, url, requestOptions.signal);
}
