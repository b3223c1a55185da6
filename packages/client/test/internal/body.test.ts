// readText, how every JSON and error body is read: counted after
// decompression, cut off at its limit, and decoded across chunk boundaries.
import { describe, expect, it } from "vitest";
import { BodyTooLarge, readText } from "../../src/internal/body.js";

const bytes = (s: string) => new TextEncoder().encode(s);
/** A response whose body arrives in the given chunks, noting whether the reader cancelled it. */
function chunked(chunks: Uint8Array[]) {
  const seen = { cancelled: false };
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i === chunks.length) controller.close();
      else controller.enqueue(chunks[i++]!);
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { response: new Response(body), seen };
}

describe("readText", () => {
  it("decodes a character whose bytes are split across chunks", async () => {
    const euro = bytes("€"); // three bytes
    const { response } = chunked([bytes('{"m":"a'), euro.subarray(0, 1), euro.subarray(1), bytes('"}')]);
    expect(await readText(response, 1024)).toBe('{"m":"a€"}');
  });

  it("takes a body of exactly the limit, and refuses one byte more, cancelling the rest", async () => {
    expect(await readText(chunked([bytes("ab"), bytes("cd")]).response, 4)).toBe("abcd");
    const over = chunked([bytes("ab"), bytes("cde"), bytes("f")]);
    await expect(readText(over.response, 4)).rejects.toBeInstanceOf(BodyTooLarge);
    await Promise.resolve();
    expect(over.seen.cancelled).toBe(true);
  });

  it("when truncating, answers the first `limit` bytes through the truncate function and cancels the rest", async () => {
    const over = chunked([bytes("ab"), bytes("cdef"), bytes("gh")]);
    expect(await readText(over.response, 5, (text) => `${text}|`)).toBe("abcde|");
    await Promise.resolve();
    expect(over.seen.cancelled).toBe(true);
    expect(await readText(chunked([bytes("abcdef")]).response, 3, (text) => text)).toBe("abc");
    // A body within the limit is not cut, and not passed through it.
    expect(await readText(chunked([bytes("abc")]).response, 3, (text) => `${text}|`)).toBe("abc");
  });

  it("answers an empty string for a response without a body", async () => {
    expect(await readText(new Response(null, { status: 204 }), 10)).toBe("");
  });
});
