const SIGNATURE = new TextEncoder().encode("%PDF-");

/**
 * Passes a document's bytes through, and errors the stream unless they start
 * with `%PDF-`: a file served as a PDF must be one, never an HTML error page
 * or a login form saved under a `.pdf` name, which a user would open and
 * trust as a statement. `saveStatement` then leaves no file. The first bytes
 * may arrive split across chunks.
 */
export function pdfSignature(): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  const check = (chunk: Uint8Array) => {
    for (let i = 0; i < chunk.byteLength && seen < SIGNATURE.byteLength; i++, seen++) {
      if (chunk[i] !== SIGNATURE[seen]) throw new Error("served as a PDF, but its bytes do not start with %PDF-");
    }
  };
  return new TransformStream({
    transform(chunk, controller) {
      if (seen < SIGNATURE.byteLength) check(chunk);
      controller.enqueue(chunk);
    },
    flush() {
      if (seen < SIGNATURE.byteLength) throw new Error(`served as a PDF, but it has ${seen} bytes, too few to be one`);
    },
  });
}
