import { describe, expect, it } from "vitest";
import { pdfSignature } from "../../src/export/pdf.js";

/** The chunks through the check; resolves with their bytes, or rejects with its error. */
async function through(...chunks: string[]): Promise<string> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
  let out = "";
  for await (const chunk of source.pipeThrough(pdfSignature()) as unknown as AsyncIterable<Uint8Array>) out += new TextDecoder().decode(chunk);
  return out;
}

describe("pdfSignature", () => {
  it("passes a PDF through unchanged, its signature whole or split across chunks", async () => {
    expect(await through("%PDF-1.7\n%%EOF\n")).toBe("%PDF-1.7\n%%EOF\n");
    expect(await through("%P", "", "DF", "-1.4 rest")).toBe("%PDF-1.4 rest");
  });

  it("errors for anything else: an HTML page, a near miss split across chunks, an empty or short body", async () => {
    await expect(through("<!doctype html><h1>Sign in</h1>")).rejects.toThrow("do not start with %PDF-");
    await expect(through("%PD", "X-1.7")).rejects.toThrow("do not start with %PDF-");
    await expect(through()).rejects.toThrow("0 bytes, too few");
    await expect(through("%PDF")).rejects.toThrow("4 bytes, too few");
  });
});
