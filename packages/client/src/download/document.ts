import { guardBody, type BodyLimits } from "../internal/body.js";
import { concat } from "../internal/bounded-read.js";
import type { Reply } from "../internal/types.js";

/**
 * A downloaded statement. `body` is the response stream itself: nothing is read ahead, so a large PDF never sits in
 * memory unless you ask for it. Consume the body once (through `body`, `arrayBuffer()`, `blob()` or `saveStatement`
 * from `@fdxkit/client/node`), or `body.cancel()` it to release the connection. Errors while reading are `FdxError`s:
 * `FdxAbortError` for the caller's signal, `FdxConnectionError` for a cut, `FdxTimeoutError` for a body that stalls
 * for `timeoutMs`, and `FdxResponseError` for one past `maxDownloadBytes`.
 */
export interface StatementDocument {
  /** The response's media type, e.g. `application/pdf` (`application/octet-stream` when the server names none). */
  contentType: string;
  /** Size in bytes announced by the server, when it announced one for the bytes you will read. */
  contentLength: number | undefined;
  /** The document's bytes, streamed. */
  body: ReadableStream<Uint8Array>;
  /** Reads the whole body into memory. */
  arrayBuffer(): Promise<ArrayBuffer>;
  /** Reads the whole body into a `Blob` typed with `contentType` (e.g. for `URL.createObjectURL`). */
  blob(): Promise<Blob>;
}

export function toDocument(response: Reply, limits: BodyLimits): StatementDocument {
  const contentType = response.headers.get("content-type") || "application/octet-stream";
  const body = guardBody(response.body, limits);
  const chunks = async (): Promise<Uint8Array[]> => {
    const out: Uint8Array[] = [];
    const reader = body.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
    return out;
  };
  return {
    contentType,
    contentLength: announcedLength(response.headers),
    body,
    async arrayBuffer() {
      return concat(await chunks()).buffer;
    },
    async blob() {
      return new Blob((await chunks()) as BlobPart[], { type: contentType });
    },
  };
}

// fetch decodes gzip/br bodies, after which Content-Length no longer counts the bytes read.
function announcedLength(headers: Headers): number | undefined {
  const encoding = headers.get("content-encoding");
  if (encoding && encoding.toLowerCase() !== "identity") return undefined;
  const value = headers.get("content-length");
  // Header values come trimmed (the Fetch standard's Headers, Node's parser).
  // Stryker disable next-line ConditionalExpression: a missing header tests as the text "null", which is no number
  return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
}
