import { concat, readBounded } from "../internal/bounded-read.js";

/** The body was longer than the limit; reading stopped there. */
export const TOO_LARGE = Symbol("too large");

/**
 * Reads a request body into memory, at most `maxBytes` of it.
 *
 * A declared `Content-Length` over the limit is refused unread. A body within it and without `Transfer-Encoding` is
 * read with `arrayBuffer()`: servers frame it by that length, so nothing past it is read, and a stream costs Bun and
 * Deno more than the rest of the delivery. A `Request` built in code can declare a length its body does not have, so
 * the bytes are measured too. A chunked body is counted as it arrives and cancelled past the limit. Where `Request`
 * has no `body` property (Firefox), `arrayBuffer()` reads it whole before it is measured.
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
