import { randomBytes } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { StatementDocument } from "../download/document.js";

/** Where `saveStatement` wrote the document. */
export interface SavedStatement {
  /** Absolute path of the saved file. */
  path: string;
  /** Bytes written. */
  bytes: number;
}

/**
 * Streams a downloaded statement to `filePath` without holding it in memory.
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
 * `EACCES`, `ENOSPC`, … in `error.code`).
 *
 * @example
 * const document = await client.statements.download(statement);
 * const { path, bytes } = await saveStatement(document, "./statements/2025-01.pdf");
 */
export async function saveStatement(document: Pick<StatementDocument, "body">, filePath: string): Promise<SavedStatement> {
  const target = resolve(filePath);
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.part`);
  let handle;
  try {
    // "wx": a file we did not create is never written to, nor removed.
    handle = await open(temp, "wx");
  } catch (error) {
    await document.body.cancel(error).catch(() => {});
    throw error;
  }
  let bytes = 0;
  try {
    await pipeline(
      Readable.fromWeb(document.body as unknown as NodeReadableStream<Uint8Array>),
      async function* count(source: AsyncIterable<Uint8Array>) {
        for await (const chunk of source) {
          bytes += chunk.byteLength;
          yield chunk;
        }
      },
      // flush: on disk before the rename makes it visible, so a crash never leaves a short file at filePath.
      handle.createWriteStream({ flush: true }),
    );
    await rename(temp, target);
  } catch (error) {
    // Closed before the unlink: Windows cannot remove a file that is still open.
    await handle.close().catch(() => {});
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
  return { path: target, bytes };
}
