import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashFile, Manifest, type ManifestEntry } from "../../src/export/manifest.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fdxkit-cli-manifest-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const entry = (n: number, extra: Partial<ManifestEntry> = {}): ManifestEntry => ({
  accountId: "ACC-1",
  statementId: `s${n}`,
  statementDate: "2026-01-31T00:00:00.000Z",
  file: `ACC-1-0000/2026-01-31_${n}.pdf`,
  bytes: 100 + n,
  sha256: "a".repeat(64),
  ...extra,
});

describe("Manifest", () => {
  it("appends one JSON line per entry and reads them back on the next run, the last line for a file winning", async () => {
    const first = await Manifest.open(dir);
    await first.append(entry(1));
    await Promise.all([first.append(entry(2)), first.append(entry(3))]);
    await first.append(entry(1, { bytes: 999 }));
    await first.close();
    const lines = (await readFile(join(dir, "manifest.jsonl"), "utf8")).trimEnd().split("\n");
    expect(lines.map((l) => JSON.parse(l).statementId)).toEqual(["s1", "s2", "s3", "s1"]);

    const second = await Manifest.open(dir);
    expect(second.get(entry(1).file)?.bytes).toBe(999);
    expect(second.get(entry(3).file)).toEqual(entry(3));
    expect(second.get("ACC-1-0000/other.pdf")).toBeUndefined();
    expect(second.skippedLines).toBe(0);
    await second.close();
  });

  it("ignores a line torn by a killed run, and the next entry starts on a line of its own", async () => {
    const path = join(dir, "manifest.jsonl");
    await writeFile(path, `${JSON.stringify(entry(1))}\n${JSON.stringify(entry(2)).slice(0, 40)}`);
    const manifest = await Manifest.open(dir);
    expect(manifest.skippedLines).toBe(1);
    expect(manifest.get(entry(2).file)).toBeUndefined();
    await manifest.append(entry(3));
    await manifest.close();
    await appendFile(path, '{"accountId":"ACC-1","statementId":"s4"}\n'); // well-formed JSON, not an entry
    const again = await Manifest.open(dir);
    expect(again.get(entry(3).file)).toEqual(entry(3));
    expect(again.get(entry(1).file)).toEqual(entry(1));
    expect(again.skippedLines).toBe(2);
    await again.close();
  });

  it("hashFile gives the file's SHA-256 and size", async () => {
    const path = join(dir, "x.pdf");
    await writeFile(path, "%PDF-1.7 hello");
    // printf %s '%PDF-1.7 hello' | sha256sum
    expect(await hashFile(path)).toEqual({ sha256: "2a916d83fa20d97c7c3c04cf07b2d3f8d18ea47f59c841a221dd3a81f15fc347", bytes: 14 });
  });
});
