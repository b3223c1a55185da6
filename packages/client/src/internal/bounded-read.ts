// The one byte-capped body reader: a response body the request path reads
// whole and a webhook's request body are both read through it, counted as the
// bytes arrive (after decompression), so an endless body or a gzip bomb never
// reaches memory.

/** The reader of a body stream: what a `ReadableStream` and Node's own transport's body both hand out. */
export interface ChunkReader {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  cancel(reason?: unknown): Promise<void>;
}

/** What {@link readBounded} read. */
export interface BoundedRead {
  /** Every chunk in order; when `over`, cut to exactly the first `limit` bytes. */
  chunks: Uint8Array[];
  /** The bytes in `chunks`. */
  bytes: number;
  /** Whether the body had more than `limit` bytes: reading stopped there and the rest was cancelled. */
  over: boolean;
}

const ignore = (): void => {};

/**
 * Reads `reader` to its end, or until it passes `limit` bytes. A read that
 * fails (the attempt stopped, the body was cut off) cancels the reader, to
 * release the connection, and rejects with its error.
 */
export async function readBounded(reader: ChunkReader, limit: number): Promise<BoundedRead> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      bytes += chunk.value.byteLength;
      if (bytes > limit) {
        // Not awaited: a cancel may wait on the source, and the caller should not.
        void reader.cancel().catch(ignore);
        chunks.push(chunk.value.subarray(0, chunk.value.byteLength - (bytes - limit)));
        return { chunks, bytes: limit, over: true };
      }
      chunks.push(chunk.value);
    }
  } catch (error) {
    void reader.cancel().catch(ignore);
    throw error;
  }
  return { chunks, bytes, over: false };
}

/** The chunks in one new array of `bytes` bytes (their sum). */
export function concat(chunks: Uint8Array[], bytes = chunks.reduce((n, chunk) => n + chunk.byteLength, 0)): Uint8Array<ArrayBuffer> {
  const all = new Uint8Array(bytes);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}
