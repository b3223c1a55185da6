// readBounded, the one byte-capped reader behind a JSON answer's body and a
// webhook's request body.
import { describe, expect, it } from "vitest";
import { readBounded, type ChunkReader } from "../../src/internal/bounded-read.js";

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (chunks: Uint8Array[]) => chunks.map((chunk) => new TextDecoder().decode(chunk)).join("");

/** A reader over `chunks` (then `failure`, when given), counting its reads and noting a cancel. */
function readerOf(chunks: string[], failure?: Error) {
  const state = { reads: 0, cancelled: false };
  const reader: ChunkReader = {
    read: async () => {
      const chunk = chunks[state.reads++];
      if (chunk !== undefined) return { done: false, value: bytes(chunk) };
      if (failure) throw failure;
      return { done: true, value: undefined };
    },
    cancel: async () => {
      state.cancelled = true;
    },
  };
  return { reader, state };
}

describe("readBounded", () => {
  it("reads a body within the limit whole, and leaves the reader alone", async () => {
    const { reader, state } = readerOf(["ab", "cd", "e"]);
    const read = await readBounded(reader, 5);
    expect([text(read.chunks), read.bytes, read.over]).toEqual(["abcde", 5, false]);
    expect(state.cancelled).toBe(false);
  });

  it("stops at the chunk that passes the limit: the first `limit` bytes kept, no further read, the rest cancelled", async () => {
    const { reader, state } = readerOf(["abc", "defg", "hij"]);
    const read = await readBounded(reader, 5);
    expect([text(read.chunks), read.bytes, read.over]).toEqual(["abcde", 5, true]);
    expect(state.reads).toBe(2);
    expect(state.cancelled).toBe(true);
  });

  it("rejects with a failed read's own error, and cancels the reader to release the connection", async () => {
    const cut = new TypeError("terminated");
    const { reader, state } = readerOf(["ab"], cut);
    await expect(readBounded(reader, 100)).rejects.toBe(cut);
    expect(state.cancelled).toBe(true);
  });
});
