// A download's body held to its limits (download/body.ts), against hostile
// servers on 127.0.0.1: a gzip or brotli bomb stops at maxDownloadBytes,
// counted after decompression; a body that stalls ends in FdxTimeoutError;
// one that keeps moving, and a consumer that reads slowly, are left alone.
import { brotliCompressSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, FdxResponseError, FdxTimeoutError, FdxValidationError, type ClientOptions } from "../../src/index.js";
import { startServer, type Handler, type TestServer } from "../support/statements.js";

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
    expect((error as FdxResponseError).issues[0]!.message).toBe(`the document is larger than maxDownloadBytes (${MiB} bytes)`);
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
      expect(() => createClient({ baseUrl: "https://x.test", token: "t", maxDownloadBytes: bad as number })).toThrow(FdxValidationError);
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
