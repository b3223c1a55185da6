/** Thrown by {@link readText} when the body passes its limit; reading stopped there. */
export class BodyTooLarge extends Error {}

/**
 * The body as text, read chunk by chunk and counted after decompression:
 * past `limit` bytes reading stops (the rest is cancelled) and, when
 * `truncate` is set, what was read so far is returned; otherwise
 * `BodyTooLarge` is thrown. A gzip bomb or an endless body never reaches
 * memory.
 */
export async function readText(response: Response, limit: number, truncate = false): Promise<string> {
  const body = response.body;
  if (!body) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      bytes += chunk.value.byteLength;
      if (bytes > limit) {
        void reader.cancel().catch(() => undefined);
        if (truncate) return text + decoder.decode(chunk.value.subarray(0, chunk.value.byteLength - (bytes - limit)));
        throw new BodyTooLarge();
      }
      text += decoder.decode(chunk.value, { stream: true });
    }
  } catch (error) {
    // Stopped by the attempt (timeout, abort) or cut off: release the connection either way.
    void reader.cancel().catch(() => undefined);
    throw error;
  }
  return text + decoder.decode();
}
