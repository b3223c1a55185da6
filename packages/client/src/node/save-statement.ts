import { randomBytes } from "node:crypto";
import { open, rename, rm, type FileHandle } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { FdxError, FdxValidationError, type FdxIssue } from "../core/error.js";
import type { StatementDocument } from "../download/document.js";

/** Where `saveStatement` wrote the document. */
export interface SavedStatement {
  /** Absolute path of the saved file. */
  path: string;
  /** Bytes written. */
  bytes: number;
}

/**
 * How far reading may run ahead of the disk. While one write is in flight the
 * next chunks are read (up to this many bytes) and then written together in
 * one `writev`: the response never waits for the disk, so the platform's
 * fetch never has to merge unread chunks into a bigger copy, and a 256 MiB
 * statement takes about a thousand writes rather than four thousand.
 */
const WRITE_BEHIND_BYTES = 1024 * 1024;

/**
 * Streams a downloaded statement to `filePath` without holding it in memory
 * (at most about 1 MiB waits for the disk at any time).
 *
 * The bytes go to a temporary file beside the target
 * (`.<name>.<random>.part`, same directory so the rename stays on one file
 * system), which is flushed and then renamed into place. A reader of
 * `filePath` therefore sees either the old file or the whole new one: on any
 * failure the temporary file is removed, nothing partial is left at
 * `filePath`, and a file already there is untouched.
 *
 * The directory must exist. Rejects with what went wrong: the document's
 * stream errors as it does for any reader (`FdxConnectionError` for a
 * connection cut mid-body, `FdxAbortError` when the download's signal
 * aborts), and file system failures keep Node's own error (`ENOENT`,
 * `EACCES`, `ENOSPC`, … in `error.code`); the download is then cancelled.
 *
 * @example
 * const document = await client.statements.download(statement);
 * const { path, bytes } = await saveStatement(document, "./statements/2025-01.pdf");
 */
export async function saveStatement(document: Pick<StatementDocument, "body">, filePath: string): Promise<SavedStatement> {
  const issues: FdxIssue[] = [];
  if (!(typeof document === "object" && document !== null && document.body instanceof ReadableStream)) {
    issues.push({ path: "document", message: "must be a StatementDocument (statements.download's result)" });
  }
  if (typeof filePath !== "string" || filePath === "") issues.push({ path: "filePath", message: "must be a non-empty string" });
  if (issues.length) throw new FdxValidationError(issues);
  const target = resolve(filePath);
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.part`);
  let handle: FileHandle;
  try {
    // "wx": a file we did not create is never written to, nor removed.
    handle = await open(temp, "wx");
  } catch (error) {
    await document.body.cancel(error).catch(() => {});
    throw error;
  }
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    reader = document.body.getReader();
    const bytes = await copy(reader, handle);
    // On disk before the rename makes it visible, so a crash never leaves a short file at filePath.
    await handle.sync();
    await handle.close();
    await rename(temp, target);
    return { path: target, bytes };
  } catch (error) {
    // Stops the download when the disk failed (a no-op after a stream error).
    await reader?.cancel(error).catch(() => {});
    // Closed before the unlink: Windows cannot remove a file that is still open.
    await handle.close().catch(() => {});
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

/**
 * Copies the stream to the file: one write in flight, and meanwhile reading
 * goes on until `WRITE_BEHIND_BYTES` are waiting; those are then written in
 * one `writev`. Resolves with the number of bytes written.
 */
async function copy(reader: ReadableStreamDefaultReader<Uint8Array>, handle: FileHandle): Promise<number> {
  let queue: Uint8Array[] = [];
  let queued = 0;
  let reading = false;
  let ended = false;
  let failed: { error: unknown } | undefined;
  let wake: (() => void) | undefined;

  const onChunk = (result: ReadableStreamReadResult<Uint8Array>): void => {
    reading = false;
    if (result.done) ended = true;
    else {
      queue.push(result.value);
      queued += result.value.byteLength;
      read();
    }
    wake?.();
  };
  const onError = (error: unknown): void => {
    reading = false;
    failed = { error };
    wake?.();
  };
  function read(): void {
    if (reading || ended || failed || queued >= WRITE_BEHIND_BYTES) return;
    reading = true;
    reader.read().then(onChunk, onError);
  }

  let written = 0;
  read();
  for (;;) {
    if (failed) throw failed.error;
    if (queue.length === 0) {
      if (ended) return written;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      continue;
    }
    const chunks = queue;
    const size = queued;
    queue = [];
    queued = 0;
    read();
    await writeFully(handle, chunks, size);
    written += size;
  }
}

async function writeFully(handle: FileHandle, chunks: Uint8Array[], size: number): Promise<void> {
  let { bytesWritten } = chunks.length === 1 ? await handle.write(chunks[0]!) : await handle.writev(chunks);
  if (bytesWritten === size) return;
  // Short write: only just before an error (a full disk), which writing the rest then reports.
  const rest = Buffer.concat(chunks, size);
  while (bytesWritten < size) {
    const { bytesWritten: n } = await handle.write(rest, bytesWritten, size - bytesWritten);
    if (n === 0) throw new FdxError(`saveStatement: the file system accepted no bytes (${size - bytesWritten} left to write)`);
    bytesWritten += n;
  }
}
