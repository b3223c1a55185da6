// The export's progress bar on a terminal: counts, notes and failures shown
// above it, nothing of a secret.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { barProgress } from "../../src/export/progress.js";
import { Output } from "../../src/output.js";

function terminal() {
  const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 120, rows: 40 });
  let text = "";
  stream.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
  return { stream, text: () => text };
}

describe("barProgress", () => {
  it("draws the counts on the terminal, and the failures and notes logged just before the end too, secrets masked", async () => {
    const { stream, text } = terminal();
    const output = new Output({ json: false, stdout: { write: () => true }, stderr: { write: () => true } });
    output.addSecrets("s3cr3t-token-value");
    const progress = await barProgress(output, stream);
    progress.addTotal(3);
    progress.item({ kind: "saved", file: "a.pdf", bytes: 2048 });
    progress.item({ kind: "present", file: "b.pdf" });
    progress.note("Shard 1/2: 3 of 6 account(s).");
    progress.item({ kind: "failed", label: "acct-1/st-3", message: "refused with s3cr3t-token-value" });
    progress.stop();
    progress.stop();
    await new Promise((resolve) => setImmediate(resolve));
    const shown = text();
    expect(shown).toContain("3/3 | 1 saved, 1 skipped, 1 failed | 2.0 kB");
    expect(shown).toContain("Shard 1/2: 3 of 6 account(s).");
    expect(shown).toContain("acct-1/st-3");
    expect(shown).not.toContain("s3cr3t-token-value");
  });
});
