import { afterEach, describe, expect, it } from "vitest";
import { BodyTooLarge, readText } from "../../src/internal/body.js";
import { concat } from "../../src/internal/bounded-read.js";
import { toDocument } from "../../src/download/document.js";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { createClient, FdxResponseError, FdxTimeoutError, FdxValidationError, type ClientOptions } from "../../src/index.js";
import { startServer, type Handler, type TestServer } from "../support/statements.js";

// internal/body.ts, where every body is bounded. readText, how every JSON
// and error body is read: counted after decompression, cut off at its limit,
// and decoded across chunk boundaries.
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

describe("concat and a document's arrayBuffer()", () => {
  it("joins chunks that are views into larger buffers, into a buffer of exactly their bytes", () => {
    const backing = bytes("xxabcxx");
    const joined = concat([backing.subarray(2, 5), bytes("de"), new Uint8Array(0), bytes("f")]);
    expect(new TextDecoder().decode(joined)).toBe("abcdef");
    expect(joined.buffer.byteLength).toBe(6);
    expect(new TextDecoder().decode(concat([bytes("ab"), bytes("cdef")], 6))).toBe("abcdef");
    expect(concat([]).byteLength).toBe(0);
  });

  it("arrayBuffer() holds every chunk of the document in order, and nothing else", async () => {
    const backing = bytes("--%PDF-1.7--");
    const { response } = chunked([backing.subarray(2, 6), bytes("-1"), backing.subarray(8, 10)]);
    const doc = toDocument(response, {
      signal: undefined,
      url: "https://x/s",
      status: 200,
      interactionId: undefined,
      maxBytes: 1_000,
      stallMs: 5_000,
      secrets: () => [],
    });
    const buffer = await doc.arrayBuffer();
    expect(buffer.byteLength).toBe(8);
    expect(new TextDecoder().decode(buffer)).toBe("%PDF-1.7");
  });
});

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

// A download's body held to its limits (guardBody), against hostile
// servers on 127.0.0.1: a gzip or brotli bomb stops at maxDownloadBytes,
// counted after decompression; a body that stalls ends in FdxTimeoutError;
// one that keeps moving, and a consumer that reads slowly, are left alone.
const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function clientFor(handler: Handler, options: Partial<ClientOptions> = {}) {
  const server = await startServer(handler);
  servers.push(server);
  return createClient({ baseUrl: server.origin, token: "tkn-secret", maxRetries: 0, ...options });
}

/** Reads the whole stream; resolves with its byte count or rejects with the stream's error. */
async function drain(stream: ReadableStream<Uint8Array>, pauseMs = 0): Promise<number> {
  let bytes = 0;
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    bytes += r.value.byteLength;
    if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return bytes;
}

const MiB = 1024 * 1024;
// 16 MiB of spaces: some 16 KiB gzipped, 20 bytes or so as brotli.
const spaces = Buffer.alloc(16 * MiB, 0x20);
const bombs = { gzip: gzipSync(spaces), br: brotliCompressSync(spaces) };

describe("maxDownloadBytes", () => {
  it.each(["gzip", "br"] as const)("stops a %s bomb where it swells past the limit, with FdxResponseError", async (encoding) => {
    const client = await clientFor((_req, res) => {
      res.writeHead(200, { "content-type": "application/pdf", "content-encoding": encoding, "content-length": bombs[encoding].length });
      res.end(bombs[encoding]);
    });
    const document = await client.statements.download("/s.pdf", { maxDownloadBytes: MiB });
    const error = await drain(document.body).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxResponseError);
    expect((error as FdxResponseError).status).toBe(200);
    expect((error as FdxResponseError).issues).toEqual([{ path: "", message: `the document is larger than maxDownloadBytes (${MiB} bytes)` }]);
    // arrayBuffer() is held to the same limit: no 16 MiB in memory.
    await expect((await client.statements.download("/s.pdf", { maxDownloadBytes: MiB })).arrayBuffer()).rejects.toBeInstanceOf(FdxResponseError);
  });

  it("takes the client's option, and a call's own over it; a body of exactly the limit passes", async () => {
    const client = await clientFor((_req, res) => res.writeHead(200, { "content-type": "application/pdf" }).end(Buffer.alloc(1000, 0x41)), {
      maxDownloadBytes: 999,
    });
    await expect((await client.statements.download("/s.pdf")).arrayBuffer()).rejects.toBeInstanceOf(FdxResponseError);
    expect((await (await client.statements.download("/s.pdf", { maxDownloadBytes: 1000 })).arrayBuffer()).byteLength).toBe(1000);
  });

  it("refuses a limit that is not an integer >= 1, on the client and on a call", async () => {
    const client = await clientFor((_req, res) => res.end());
    for (const bad of [0, -1, 1.5, "10", Number.NaN]) {
      expect(() => createClient({ baseUrl: "https://x.test", token: "t", maxDownloadBytes: bad as number })).toThrow(
        expect.objectContaining({ issues: [{ path: "maxDownloadBytes", message: "must be an integer >= 1" }] }),
      );
      const error = (await client.statements.download("/s.pdf", { maxDownloadBytes: bad as number }).catch((e: unknown) => e)) as FdxValidationError;
      expect(error).toBeInstanceOf(FdxValidationError);
      expect(error.issues).toEqual([{ path: "maxDownloadBytes", message: "must be an integer >= 1" }]);
    }
  });
});

describe("a body that stalls", () => {
  it("errors the stream with FdxTimeoutError once a wait for the next chunk lasts timeoutMs", async () => {
    const client = await clientFor((_req, res) => {
      res.writeHead(200, { "content-type": "application/pdf" });
      // Some bytes, then nothing more, the connection held open.
      res.write(Buffer.alloc(1000, 0x41));
    });
    const document = await client.statements.download("/s.pdf", { timeoutMs: 200 });
    const error = await drain(document.body).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxTimeoutError);
    expect((error as FdxTimeoutError).message).toMatch(/stalled for 200 ms/);
  });

  it("leaves a body that keeps moving, and a consumer that reads slowly, alone", async () => {
    const client = await clientFor(async (_req, res) => {
      res.writeHead(200, { "content-type": "application/pdf" });
      res.flushHeaders();
      // Ten chunks 60 ms apart: 600 ms in all, three times the timeout, never a 200 ms wait.
      for (let i = 0; i < 10; i++) {
        res.write(Buffer.alloc(100, 0x41));
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
      res.end();
    });
    expect(await drain((await client.statements.download("/s.pdf", { timeoutMs: 200 })).body)).toBe(1000);
    // The consumer waits 300 ms between reads: only the body's waits count, not the consumer's.
    expect(await drain((await client.statements.download("/s.pdf", { timeoutMs: 200 })).body, 300)).toBe(1000);
  });
});
