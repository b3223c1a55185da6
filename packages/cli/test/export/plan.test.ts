import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { accountDirName } from "../../src/export/filename.js";
import { Manifest } from "../../src/export/manifest.js";
import { findSaved, planExport } from "../../src/export/plan.js";
import type { Progress } from "../../src/export/progress.js";
import { AimdController } from "../../src/export/rate-limit.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fdxkit-cli-plan-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function notesOnly(notes: string[]): Progress {
  const unexpected = () => {
    throw new Error("the plan reports nothing but notes");
  };
  return { addTotal: unexpected, item: unexpected, note: (text) => notes.push(text), failure: unexpected, stop: unexpected };
}

const options = (notes: string[], accounts: string[]) => ({
  providerId: "prov",
  accounts,
  from: new Date("2023-03-01T00:00:00.000Z"),
  to: new Date("2025-06-30T23:59:59.999Z"),
  outDir: relative(process.cwd(), join(dir, "out")),
  rate: new AimdController({ max: 3 }),
  progress: notesOnly(notes),
});

describe("planExport", () => {
  it("lays out the run: absolute output directory, windows newest first, an empty tally per account", async () => {
    const notes: string[] = [];
    const plan = await planExport(options(notes, ["ACC-1", "ACC-2"]));
    await plan.manifest.close();
    expect(plan.outDir).toBe(join(dir, "out"));
    expect(plan.summary.windows).toEqual([
      { start: "2025-03-01T00:00:00.000Z", end: "2025-06-30T23:59:59.999Z" },
      { start: "2024-03-01T00:00:00.000Z", end: "2025-03-01T00:00:00.000Z" },
      { start: "2023-03-01T00:00:00.000Z", end: "2024-03-01T00:00:00.000Z" },
    ]);
    expect(plan.accounts.map((a) => [a.summary.accountId, a.summary.dir, a.dirPath])).toEqual([
      ["ACC-1", accountDirName("ACC-1"), join(dir, "out", accountDirName("ACC-1"))],
      ["ACC-2", accountDirName("ACC-2"), join(dir, "out", accountDirName("ACC-2"))],
    ]);
    expect(plan.summary).toMatchObject({ providerId: "prov", listed: 0, downloaded: 0, removedPartFiles: 0, rateLimit: { limit: 3, rateLimited: 0 } });
    expect(plan.summary.accounts[0]).toBe(plan.accounts[0]!.summary);
    // Account directories are made by their first download, not by the plan.
    expect(await readdir(join(dir, "out"))).toEqual(["manifest.jsonl"]);
    expect(notes).toEqual([]);
  });

  it("removes the .part files of its own accounts only, and says what an earlier run left", async () => {
    const mine = join(dir, "out", accountDirName("ACC-1"));
    const other = join(dir, "out", accountDirName("ACC-OTHER-SHARD"));
    await mkdir(mine, { recursive: true });
    await mkdir(other, { recursive: true });
    await writeFile(join(mine, ".2025-01-31_ab.pdf.x1.part"), "%PDF-");
    await writeFile(join(mine, ".2025-02-28_cd.pdf.x2.part"), "%PDF-");
    await writeFile(join(mine, "2025-01-01_ef.pdf"), "%PDF-1.7");
    await writeFile(join(other, ".2025-01-31_ab.pdf.x3.part"), "%PDF-");
    await writeFile(join(dir, "out", "manifest.jsonl"), '{"torn":\n');
    const notes: string[] = [];
    const plan = await planExport(options(notes, ["ACC-1"]));
    await plan.manifest.close();
    expect(plan.summary.removedPartFiles).toBe(2);
    expect(await readdir(mine)).toEqual(["2025-01-01_ef.pdf"]);
    expect(await readdir(other)).toEqual([".2025-01-31_ab.pdf.x3.part"]);
    expect(notes).toEqual([
      "Removed 2 temporary .part file(s) left by an earlier run.",
      "manifest.jsonl: 1 unreadable line(s) ignored (a run killed while writing).",
    ]);
  });
});

describe("findSaved", () => {
  const file = "ACC-1-0000/2025-01-31_ab.pdf";
  const bytes = "%PDF-1.7 hello";
  // printf %s '%PDF-1.7 hello' | sha256sum
  const sha256 = "2a916d83fa20d97c7c3c04cf07b2d3f8d18ea47f59c841a221dd3a81f15fc347";

  it("tells a recorded file from an unrecorded complete one, and both from one to download", async () => {
    const path = join(dir, file);
    await mkdir(join(dir, "ACC-1-0000"));
    const manifest = await Manifest.open(dir);
    try {
      expect(await findSaved(manifest, file, path)).toEqual({ state: "missing" });
      await writeFile(path, bytes);
      expect(await findSaved(manifest, file, path)).toEqual({ state: "unrecorded", bytes: 14, sha256 });
      await manifest.append({ accountId: "ACC-1", statementId: "s1", statementDate: null, file, bytes: 14, sha256 });
      expect(await findSaved(manifest, file, path)).toEqual({ state: "recorded" });
      // Recorded, but the file on disk is not the one recorded (cut short or replaced): downloaded again.
      await writeFile(path, `${bytes}!`);
      expect(await findSaved(manifest, file, path)).toEqual({ state: "missing" });
      await rm(path);
      expect(await findSaved(manifest, file, path)).toEqual({ state: "missing" });
    } finally {
      await manifest.close();
    }
  });
});
