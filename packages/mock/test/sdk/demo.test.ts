// `pnpm demo` runs examples/quickstart/index.mjs (against the built packages): it must work and say what it did.
import { execFile } from "node:child_process";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { isPdf } from "./helpers.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const statementsDir = path.join(root, "examples/quickstart/statements");

function runDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // The timeout only keeps a hung demo from hanging the suite; it is not what is tested.
    execFile(process.execPath, ["examples/quickstart/index.mjs"], { cwd: root, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr });
    });
  });
}

it("the quickstart demo exits 0, prints its summary and leaves valid PDFs", async () => {
  const { code, stdout, stderr } = await runDemo();
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });

  const lines = stdout.trimEnd().split("\n");
  const expected = [
    /^sandbox {6}http:\/\/127\.0\.0\.1:\d+ \(statements at http:\/\/127\.0\.0\.1:\d+\/products\)$/,
    /^receiver {5}http:\/\/127\.0\.0\.1:\d+\/webhooks$/,
    /^subscribed {3}[0-9a-f-]{36} \(CONSENT\/CONSENT_REVOKED\)$/,
    /^webhook {6}CONSENT\/CONSENT_REVOKED received \(test event ntf-[0-9a-f-]+\)$/,
    /^consent {6}consent-revoked-1: REVOKED, 2 resources$/,
    /^statements {3}24 of sandbox-bank\/ACC-1001 in 4 pages; 24 PDFs saved to examples\/quickstart\/statements \(\d+ KiB\)$/,
    /^deleted {6}[0-9a-f-]{36} \(reading it back now answers 400: subscription id was not found\)$/,
    /^done in \d+\.\d s$/,
  ];
  expect(lines).toHaveLength(expected.length);
  for (const [n, line] of lines.entries()) expect(line).toMatch(expected[n]!);
  // The same subscription was created and then deleted.
  expect(lines[2]!.split(" ").at(-2)).toBe(lines[6]!.split(/ +/)[1]);

  // 24 month-end statements, each a complete PDF, and no temporary files left behind.
  const files = (await readdir(statementsDir)).sort();
  expect(files).toHaveLength(24);
  expect(files[0]).toBe("2024-11-30.pdf");
  expect(files.at(-1)).toBe("2026-10-31.pdf");
  for (const file of files) {
    expect(file).toMatch(/^\d{4}-\d{2}-\d{2}\.pdf$/);
    const bytes = await readFile(path.join(statementsDir, file));
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(isPdf(bytes)).toBe(true);
  }
});
