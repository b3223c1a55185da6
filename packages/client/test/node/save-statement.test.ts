import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, open, readdir, readFile, rm, stat, writeFile, type FileHandle } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { gzipSync } from "node:zlib";
import { createClient, FdxAbortError, FdxConnectionError, FdxError, FdxResponseError, FdxTimeoutError, FdxValidationError } from "../../src/index.js";
import { saveStatement } from "../../src/node/index.js";
import { startServer, type Handler, type TestServer } from "../support/statements.js";

const BYTES = randomBytes(256 * 1024);

let dir: string;
const servers: TestServer[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fdxkit-save-"));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

async function download(handler: Handler, signal?: AbortSignal, options: { maxDownloadBytes?: number; timeoutMs?: number } = {}) {
  const server = await startServer(handler);
  servers.push(server);
  const client = createClient({ baseUrl: server.origin, token: "tkn", maxRetries: 0 });
  return client.statements.download("/statements/v2/P/A/S", { signal, ...options });
}

/** Sends the headers (announcing all of BYTES) and the first `sent` bytes, then lets `after` decide. */
function partial(sent: number, after: (res: ServerResponse) => void): Handler {
  return (_req, res) => {
    res.writeHead(200, { "content-type": "application/pdf", "content-length": BYTES.length });
    res.write(BYTES.subarray(0, sent), () => after(res));
  };
}

describe("saveStatement", () => {
  it("writes the exact bytes and reports where and how many", async () => {
    const document = await download((_req, res) => {
      res.writeHead(200, { "content-type": "application/pdf", "content-length": BYTES.length });
      res.end(BYTES);
    });
    const target = join(dir, "2025-01.pdf");
    const saved = await saveStatement(document, target);
    expect(saved).toEqual({ path: target, bytes: BYTES.length });
    expect(sha256(await readFile(target))).toBe(sha256(BYTES));
    expect(await readdir(dir)).toEqual(["2025-01.pdf"]);
  });

  it("replaces an existing file once the new one is complete", async () => {
    const target = join(dir, "s.pdf");
    await writeFile(target, "old");
    const document = await download((_req, res) => res.end(BYTES));
    await saveStatement(document, target);
    expect(sha256(await readFile(target))).toBe(sha256(BYTES));
    expect(await readdir(dir)).toEqual(["s.pdf"]);
  });

  it("rejects with FdxConnectionError when the connection is cut mid-body, leaving nothing behind", async () => {
    const document = await download(partial(64 * 1024, (res) => res.socket?.destroy()));
    const target = join(dir, "cut.pdf");
    const error = await saveStatement(document, target).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxConnectionError);
    expect((error as FdxConnectionError).cause).toBeDefined();
    expect(await readdir(dir)).toEqual([]);
  });

  it("rejects with FdxResponseError for a gzip bomb past maxDownloadBytes, leaving nothing behind", async () => {
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20));
    const document = await download((_req, res) => res.writeHead(200, { "content-type": "application/pdf", "content-encoding": "gzip" }).end(bomb), undefined, {
      maxDownloadBytes: 1024 * 1024,
    });
    const target = join(dir, "bomb.pdf");
    await writeFile(target, "previous statement");
    await expect(saveStatement(document, target)).rejects.toBeInstanceOf(FdxResponseError);
    expect(await readdir(dir)).toEqual(["bomb.pdf"]);
    expect(await readFile(target, "utf8")).toBe("previous statement");
  });

  it("rejects with FdxTimeoutError for a body that stalls, leaving nothing behind", async () => {
    const document = await download(
      partial(1024, () => {}),
      undefined,
      { timeoutMs: 150 },
    );
    await expect(saveStatement(document, join(dir, "stalled.pdf"))).rejects.toBeInstanceOf(FdxTimeoutError);
    expect(await readdir(dir)).toEqual([]);
  });

  it("keeps an existing file intact when the download fails", async () => {
    const target = join(dir, "keep.pdf");
    await writeFile(target, "previous statement");
    const document = await download(partial(1024, (res) => res.socket?.destroy()));
    await expect(saveStatement(document, target)).rejects.toBeInstanceOf(FdxConnectionError);
    expect(await readFile(target, "utf8")).toBe("previous statement");
    expect(await readdir(dir)).toEqual(["keep.pdf"]);
  });

  it("rejects with FdxAbortError when the signal aborts mid-body, and removes the partial file", async () => {
    const controller = new AbortController();
    const document = await download(
      partial(64 * 1024, () => {}),
      controller.signal,
    );
    const target = join(dir, "aborted.pdf");
    const saving = saveStatement(document, target);
    await untilPartialFileHasBytes();
    controller.abort();
    await expect(saving).rejects.toBeInstanceOf(FdxAbortError);
    expect(await readdir(dir)).toEqual([]);
  });

  it("writes many small chunks in order (batched writes)", async () => {
    // 5000 chunks of 1..97 bytes: far more than one writev takes, in uneven sizes.
    const parts = Array.from({ length: 5000 }, (_, i) => BYTES.subarray((i * 13) % 4096, ((i * 13) % 4096) + 1 + (i % 97)));
    const target = join(dir, "small.pdf");
    const saved = await saveStatement({ body: fromChunks(parts) }, target);
    const expected = Buffer.concat(parts);
    expect(saved.bytes).toBe(expected.length);
    expect(sha256(await readFile(target))).toBe(sha256(expected));
    expect(await readdir(dir)).toEqual(["small.pdf"]);
  });

  it("rejects with the stream's error even while chunks wait for the disk, leaving nothing behind", async () => {
    const failure = new FdxConnectionError("cut");
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 64) controller.enqueue(BYTES.slice(0, 64 * 1024));
        else controller.error(failure);
      },
    });
    const target = join(dir, "cut-late.pdf");
    await expect(saveStatement({ body }, target)).rejects.toBe(failure);
    expect(await readdir(dir)).toEqual([]);
  });

  it("completes a short batched write (as the disk fills) with single writes", async () => {
    const proto = await fileHandlePrototype();
    // One writev that stops after 10 bytes, as a write does just before ENOSPC; the rest goes through write.
    const short = vi.spyOn(proto, "writev").mockImplementationOnce(async function (this: FileHandle, buffers: readonly NodeJS.ArrayBufferView[]) {
      await this.write(new Uint8Array(buffers[0]!.buffer, buffers[0]!.byteOffset, 10));
      return { bytesWritten: 10, buffers };
    });
    try {
      const parts = [BYTES.subarray(0, 1000), BYTES.subarray(1000, 3000)];
      const target = join(dir, "short.pdf");
      await saveStatement({ body: fromChunks(parts, { batched: true }) }, target);
      expect(short).toHaveBeenCalled();
      expect(sha256(await readFile(target))).toBe(sha256(BYTES.subarray(0, 3000)));
    } finally {
      short.mockRestore();
    }
  });

  it("rejects and removes the temporary file when the file system accepts no bytes", async () => {
    const proto = await fileHandlePrototype();
    const none = vi.spyOn(proto, "writev").mockResolvedValue({ bytesWritten: 0, buffers: [] });
    const stuck = vi.spyOn(proto, "write").mockResolvedValue({ bytesWritten: 0, buffer: "" });
    try {
      const target = join(dir, "stuck.pdf");
      const parts = [BYTES.subarray(0, 100), BYTES.subarray(100, 200)];
      const error = await saveStatement({ body: fromChunks(parts, { batched: true }) }, target).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FdxError);
      expect((error as FdxError).message).toBe("saveStatement: the file system accepted no bytes (200 left to write)");
      expect(await readdir(dir)).toEqual([]);
    } finally {
      none.mockRestore();
      stuck.mockRestore();
    }
  });

  it("rejects without leaving a temporary file when the body is already being read", async () => {
    const body = fromChunks([BYTES]);
    const reader = body.getReader();
    await expect(saveStatement({ body }, join(dir, "locked.pdf"))).rejects.toBeInstanceOf(TypeError);
    expect(await readdir(dir)).toEqual([]);
    reader.releaseLock();
  });

  it("rejects with the file system's error when the directory does not exist, and releases the download", async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const document = await download(
      partial(1024, (res) => {
        res.on("close", closed);
      }),
    );
    const error = await saveStatement(document, join(dir, "missing", "s.pdf")).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "ENOENT" });
    await connectionClosed;
    expect(await readdir(dir)).toEqual([]);
  });
});

/** A body of `parts`; `batched`: all of them queued up front, so saveStatement writes them in one writev. */
function fromChunks(parts: Uint8Array[], { batched = false } = {}): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>(
    batched
      ? {
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }
      : {
          pull(controller) {
            if (i < parts.length) controller.enqueue(parts[i++]!);
            else controller.close();
          },
        },
  );
}

/** The prototype of Node's FileHandle (not exported), to stub its writes. */
async function fileHandlePrototype(): Promise<FileHandle> {
  const handle = await open(join(dir, ".probe"), "w");
  await handle.close();
  await rm(join(dir, ".probe"));
  return Object.getPrototypeOf(handle);
}

// Deep equality over 256 KiB byte by byte is slow; a digest compares the same thing.
function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Waits until the temporary `.part` file holds some of the body, so the abort lands mid-stream. */
async function untilPartialFileHasBytes(): Promise<void> {
  for (;;) {
    const part = (await readdir(dir)).find((name) => name.endsWith(".part"));
    if (part && (await stat(join(dir, part)).catch(() => undefined))?.size) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("misuse", () => {
  it("a document without a body stream, or a path that is not a string, is an FdxValidationError naming each", async () => {
    const error = await saveStatement({ body: "pdf" } as never, 42 as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues).toEqual([
      { path: "document", message: "must be a StatementDocument (statements.download's result)" },
      { path: "filePath", message: "must be a non-empty string" },
    ]);
  });
});
