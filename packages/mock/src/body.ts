import { isPlainObject } from "./validation.js";

/** Largest request body the sandbox reads (a shared sandbox must not buffer whatever it is sent). */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The request body, read up to `limit` bytes, or `undefined` when it is larger.
 * A declared `Content-Length` over the limit is refused before reading anything;
 * otherwise reading stops at the first byte past it, and the rest is never read.
 */
export async function readLimitedBody(request: Request, limit = MAX_BODY_BYTES): Promise<Uint8Array | undefined> {
  if (request.body === null) return new Uint8Array(0);
  const declared = request.headers.get("Content-Length");
  if (declared !== null && Number(declared) > limit) return undefined;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      // Stops the source; the connection is the server's to close.
      reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

/** The body as a JSON object, or `undefined` when it is anything else (unparseable JSON or UTF-8 included). */
export function parseJsonObject(body: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
