/** Thrown by {@link readText} when the body passes its limit; reading stopped there. */
export class BodyTooLarge extends Error {}

/**
 * The body as text, read chunk by chunk and counted after decompression:
 * past `limit` bytes reading stops (the rest is cancelled) and, when
 * `truncate` is given, the first `limit` bytes are returned as text passed
 * through it (the request path drops a secret the cut split: see
 * `dropCutSecret`); otherwise `BodyTooLarge` is thrown. A gzip bomb or an
 * endless body never reaches memory.
 */
export async function readText(response: Response, limit: number, truncate?: (text: string) => string): Promise<string> {
  const body = response.body;
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      bytes += chunk.value.byteLength;
      if (bytes > limit) {
        void reader.cancel().catch(() => undefined);
        if (!truncate) throw new BodyTooLarge();
        chunks.push(chunk.value.subarray(0, chunk.value.byteLength - (bytes - limit)));
        return truncate(decode(chunks, limit));
      }
      chunks.push(chunk.value);
    }
  } catch (error) {
    // Stopped by the attempt (timeout, abort) or cut off: release the connection either way.
    void reader.cancel().catch(() => undefined);
    throw error;
  }
  return decode(chunks, bytes);
}

/**
 * Decoded once, at the end, with one shared decoder: most JSON answers are a
 * single chunk, and a streaming decoder per call cost more than the copy.
 */
function decode(chunks: Uint8Array[], bytes: number): string {
  // Stryker disable next-line ConditionalExpression: the general path decodes the same bytes; this only saves a copy
  if (chunks.length === 1) return utf8.decode(chunks[0]);
  const all = new Uint8Array(bytes);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return utf8.decode(all);
}

const utf8 = new TextDecoder();
