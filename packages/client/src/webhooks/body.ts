import { concat, readBounded } from "../internal/bounded-read.js";

/** The body was longer than the limit; reading stopped there. */
export const TOO_LARGE = Symbol("too large");

/**
 * Reads a request body into memory, at most `maxBytes` of it.
 *
 * A declared `Content-Length` over the limit is refused before a byte is read.
 * One within the limit, without `Transfer-Encoding`, is read in one go with
 * `arrayBuffer()`: every server frames such a body by its declared length (Node,
 * Bun and Deno refuse a request that also declares `Transfer-Encoding`), so
 * nothing past it is read, and opening the body as a stream costs Bun and Deno
 * more than the rest of the delivery. A `Request` built in code can carry a
 * length its body does not have: what arrives is still measured, and more than
 * the limit is refused. Otherwise (a chunked body declares no length) bytes are
 * counted as they arrive: past the limit the stream is cancelled, so the
 * sender's remaining bytes are never read.
 *
 * Where a `Request` has no `body` stream at all (Firefox's `Request` lacks the
 * property), the body is read with `arrayBuffer()`: the declared length is
 * still refused first, and a body found longer than the limit is refused too,
 * though by then the platform has already read it.
 */
export async function readBodyWithLimit(request: Request, maxBytes: number): Promise<Uint8Array | typeof TOO_LARGE> {
  const declared = request.headers.get("content-length");
  // Stryker disable next-line StringLiteral: any fallback that is not digits reads as "no length declared"
  const length = /^\s*\d+\s*$/.test(declared ?? "") ? Number(declared) : undefined;
  if ((length ?? -1) > maxBytes) {
    cancel(request.body);
    return TOO_LARGE;
  }
  // `body` `undefined`, not `null`: the platform has no body stream (a body-less request has `null`).
  if ((length !== undefined && !request.headers.has("transfer-encoding")) || request.body === undefined) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    return bytes.byteLength > maxBytes ? TOO_LARGE : bytes;
  }
  if (request.body === null) return new Uint8Array(0);

  const { chunks, bytes, over } = await readBounded(request.body.getReader(), maxBytes);
  return over ? TOO_LARGE : concat(chunks, bytes);
}

function cancel(stream: ReadableStream | null | undefined): void {
  if (stream && !stream.locked) stream.cancel().catch(() => {});
}
