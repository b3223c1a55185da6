import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import type { FdxClient, Statement, StatementIds } from "@fdxkit/client";
import { saveStatement } from "@fdxkit/client/node";
import { pdfSignature } from "./pdf.js";
import type { AccountState } from "./types.js";

/**
 * Downloads a statement's PDF to `path` (temporary file, then rename, so a
 * file at its final name is always complete) and resolves with its size and
 * SHA-256. Anything but a PDF is refused before a byte is kept.
 */
export async function downloadStatement(
  client: FdxClient,
  providerId: string,
  account: AccountState,
  statement: Statement,
  path: string,
  signal: AbortSignal,
): Promise<{ bytes: number; sha256: string }> {
  account.ready ??= mkdir(account.dirPath, { recursive: true }).then(() => undefined);
  await account.ready;
  const target = downloadTarget(statement, providerId, account.summary.accountId);
  const document = await client.statements.download(target, { signal, actorType: "batch" });
  if (!/pdf/i.test(document.contentType)) {
    await document.body.cancel().catch(() => undefined);
    throw new Error(`expected a PDF, got ${JSON.stringify(document.contentType)}`);
  }
  const hash = hashing();
  // saveStatement removes its temporary file when the body errors, as it does on an abort (or on bytes that are no PDF).
  const saved = await saveStatement({ body: document.body.pipeThrough(pdfSignature()).pipeThrough(hash.stream) }, path);
  return { bytes: saved.bytes, sha256: hash.digest() };
}

/** The statement itself when it carries a link (preferred: its tokenized id is already in URL form), else its ids. */
function downloadTarget(statement: Statement, providerId: string, accountId: string): Statement | StatementIds {
  const hasLink = Array.isArray(statement.links) && statement.links.some((link) => typeof link?.href === "string" && link.href !== "");
  if (hasLink || typeof statement.statementId !== "string") return statement;
  return { providerId, accountId, statementId: statement.statementId };
}

/** A pass-through stream that hashes what it passes. */
function hashing(): { stream: TransformStream<Uint8Array, Uint8Array>; digest: () => string } {
  const hash = createHash("sha256");
  const stream = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      hash.update(chunk);
      controller.enqueue(chunk);
    },
  });
  return { stream, digest: () => hash.digest("hex") };
}
