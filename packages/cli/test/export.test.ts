import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type Statement } from "@fdxkit/client";
import { startMockServer, type MockServer } from "@fdxkit/mock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { accountDirName } from "../src/export/filename.js";
import { shardOf } from "../src/export/shard.js";
import { assertBuilt, mockFlags, runCli, startCli, startProxy, TOKEN, type TestServer } from "./helpers.js";

let mock: MockServer;
let dir: string;

beforeAll(async () => {
  assertBuilt();
  mock = await startMockServer({ port: 0, token: TOKEN });
});
afterAll(() => mock.close());
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fdxkit-cli-export-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

// ACC-1003: 24 monthly statements, one FAILED (2025-08) and one PROCESSING (2026-10).
const ACCOUNT = "ACC-1003";
const RANGE = ["--provider", "sandbox-bank", "--account", ACCOUNT, "--from", "2024-11-01", "--to", "2026-10-31"];
const AVAILABLE = 22;
const ACCOUNT_DIR = accountDirName(ACCOUNT);

interface Entry {
  accountId: string;
  statementId: string | null;
  statementDate: string | null;
  file: string;
  bytes: number;
  sha256: string;
}

function exportArgs(urls: { baseUrl: string; productsUrl: string }, ...extra: string[]): string[] {
  return ["statements", "export", ...RANGE, "--out", dir, ...mockFlags(urls), ...extra];
}

/** Every file under a directory, relative, `/`-separated. */
async function walk(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) =>
      join(e.parentPath, e.name)
        .slice(root.length + 1)
        .split("\\")
        .join("/"),
    )
    .sort();
}

/** The statement files (PDFs), the hidden ones (temporary files), and the PDFs that are not whole. */
async function inspect(root: string): Promise<{ names: string[]; hidden: string[]; incomplete: string[] }> {
  const all = await walk(root);
  const names = all.filter((n) => n.endsWith(".pdf") && !n.split("/").at(-1)!.startsWith("."));
  const incomplete: string[] = [];
  for (const name of names) {
    const text = (await readFile(join(root, name))).toString("latin1");
    if (!text.startsWith("%PDF-") || !text.trimEnd().endsWith("%%EOF")) incomplete.push(name);
  }
  return { names, hidden: all.filter((n) => n.split("/").at(-1)!.startsWith(".")), incomplete };
}

async function manifest(root: string): Promise<Entry[]> {
  const text = await readFile(join(root, "manifest.jsonl"), "utf8");
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Entry);
}

/** Every manifest entry names a file that is there, with its size and SHA-256. */
async function expectManifestMatchesFiles(root: string): Promise<Entry[]> {
  const entries = await manifest(root);
  for (const entry of entries) {
    const bytes = await readFile(join(root, entry.file));
    expect(bytes.byteLength, entry.file).toBe(entry.bytes);
    expect(createHash("sha256").update(bytes).digest("hex"), entry.file).toBe(entry.sha256);
  }
  return entries;
}

/** The PDF the mock serves for a statement, for a byte-for-byte comparison. */
async function mockPdf(href: string): Promise<Buffer> {
  const response = await fetch(new URL(href, mock.baseUrl), { headers: { Authorization: `Bearer ${TOKEN}` } });
  return Buffer.from(await response.arrayBuffer());
}

const client = () => createClient({ baseUrl: mock.baseUrl, productsUrl: mock.productsUrl, token: TOKEN });

/**
 * What the service lists for an account over windows, each window through
 * the client (`none`: no window listed a statement; the client lists an
 * account without statements, 404 with FDX code 1108, as empty).
 */
async function listWindows(accountId: string, windows: { start: string; end: string }[]): Promise<Statement[] & { none?: boolean }> {
  const all: Statement[] & { none?: boolean } = [];
  for (const w of windows) {
    all.push(...(await client().statements.list({ providerId: "sandbox-bank", accountId, startTime: w.start, endTime: w.end, limit: 100 }).toArray()));
  }
  all.none = all.length === 0;
  return all;
}

const downloadable = (s: Statement) => s.status !== "PROCESSING" && s.status !== "FAILED";
const seedAccounts = () => mock.seed.accounts.map((a) => a.accountId);

describe("statements export: one account", () => {
  it("downloads every available statement as a PDF into the account's directory, records each in the manifest, and a rerun downloads nothing", async () => {
    const first = await runCli(exportArgs(mock, "--json"));
    expect(first.code).toBe(0);
    const summary = JSON.parse(first.stdout);
    expect(summary).toMatchObject({ listed: 24, downloaded: AVAILABLE, alreadyPresent: 0, failed: [], listFailed: [], interrupted: false });
    expect(summary.unavailable.map((u: { status: string }) => u.status).sort()).toEqual(["FAILED", "PROCESSING"]);

    const files = await inspect(dir);
    expect(files.names).toHaveLength(AVAILABLE);
    expect(files.incomplete).toEqual([]);
    expect(files.hidden).toEqual([]);
    for (const name of files.names) expect(name).toMatch(new RegExp(`^${ACCOUNT_DIR}/\\d{4}-\\d{2}-\\d{2}_[0-9a-f]{16}\\.pdf$`));
    expect(summary.bytes).toBe((await Promise.all(files.names.map((n) => readFile(join(dir, n))))).reduce((sum, b) => sum + b.byteLength, 0));
    expect(files.names.some((n) => n.includes("/2025-08-31") || n.includes("/2026-10-31"))).toBe(false);

    // One manifest line per saved statement, each matching its file.
    const entries = await expectManifestMatchesFiles(dir);
    expect(entries.map((e) => e.file).sort()).toEqual(files.names);
    for (const e of entries)
      expect(e).toMatchObject({
        accountId: ACCOUNT,
        statementId: expect.stringMatching(/^stmt:ACC-1003\|/),
        statementDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      });

    // Byte for byte what the service serves.
    const [september] = await client()
      .statements.list({ providerId: "sandbox-bank", accountId: ACCOUNT, startTime: "2026-09-30", endTime: "2026-09-30T23:59:59Z" })
      .toArray();
    const entry = entries.find((e) => e.statementId === september!.statementId)!;
    expect((await readFile(join(dir, entry.file))).equals(await mockPdf(september!.links![0]!.href))).toBe(true);

    // Resumed: everything already there, nothing downloaded, the manifest unchanged.
    const second = await runCli(exportArgs(mock, "--json"));
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ listed: 24, downloaded: 0, alreadyPresent: AVAILABLE, bytes: 0 });
    expect((await inspect(dir)).names).toEqual(files.names);
    expect(await manifest(dir)).toEqual(entries);
  });

  it("prints plain progress lines without a terminal and a summary that says it finished", async () => {
    const result = await runCli(exportArgs(mock, "--concurrency", "2"));
    expect(result.code).toBe(0);
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(24);
    expect(lines.filter((l) => new RegExp(` saved {4}${ACCOUNT_DIR}/\\d{4}-\\d{2}-\\d{2}_[0-9a-f]{16}\\.pdf \\(\\d`).test(l))).toHaveLength(AVAILABLE);
    expect(lines.filter((l) => /skipped .*\((PROCESSING|FAILED)\)$/.test(l))).toHaveLength(2);
    expect(lines.at(-1)).toMatch(/^\[24\/24\] /);
    expect(result.stdout).toMatch(/^Export finished: sandbox-bank, 1 account\(s\) -> /);
    expect(result.stdout).toMatch(/^ {2}downloaded {7}22 \(\d/m);
    expect(result.stdout).toMatch(/^ {2}not available {4}2 \(PROCESSING 1, FAILED 1\)$/m);
    expect(result.stdout).toMatch(/^ {2}failed {11}0$/m);
    expect(result.stdout).toContain("Not available (skipped):");
  });

  it("a file missing or of the wrong size is downloaded again; a complete file not in the manifest is adopted, never overwritten", async () => {
    await runCli(exportArgs(mock));
    const entries = await manifest(dir);
    const [removed, truncated, unrecorded] = entries;
    await rm(join(dir, removed!.file));
    await writeFile(join(dir, truncated!.file), "%PDF-1.7 short\n%%EOF\n");
    // An operator's file where a statement goes, and a manifest that lost its line (a run killed after the rename).
    await writeFile(join(dir, unrecorded!.file), "%PDF-1.7 placeholder kept by the operator\n%%EOF\n");
    await writeFile(
      join(dir, "manifest.jsonl"),
      entries
        .filter((e) => e !== unrecorded)
        .map((e) => `${JSON.stringify(e)}\n`)
        .join(""),
    );

    const result = await runCli(exportArgs(mock, "--json"));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ downloaded: 2, alreadyPresent: AVAILABLE - 2 });
    expect(await readFile(join(dir, unrecorded!.file), "utf8")).toContain("placeholder");
    expect((await readFile(join(dir, truncated!.file))).byteLength).toBe(truncated!.bytes);
    // The manifest now matches every file, the adopted one with its own hash.
    const after = await expectManifestMatchesFiles(dir);
    expect(new Set(after.map((e) => e.file)).size).toBe(AVAILABLE);
  });

  it("a failed download is counted and reported; the others are saved; exit 1; the summary does not say finished", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    // 500 for the statements of January to April 2025 (their links carry "%7C2025-0[1-4]"), everything else passed through.
    const proxy: TestServer = await startProxy(mock.baseUrl, {
      intercept(req: IncomingMessage, res: ServerResponse) {
        if (/%7C2025-0[1-4]%2F/.test(req.url ?? "")) {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ code: "500", message: "Internal server error", debugMessage: "storage node down" }));
          return true;
        }
        return false;
      },
      pdfBody(bytes, _req, res) {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        // Answer on a later turn, so that downloads overlap when the CLI runs them concurrently.
        setImmediate(() => {
          inFlight--;
          res.end(bytes);
        });
      },
    });
    try {
      const urls = { baseUrl: proxy.url, productsUrl: `${proxy.url}/products` };
      const result = await runCli(exportArgs(urls, "--json", "--max-retries", "0", "--concurrency", "3"));
      expect(result.code).toBe(1);
      const summary = JSON.parse(result.stdout);
      expect(summary.downloaded).toBe(AVAILABLE - 4);
      expect(summary.failed).toHaveLength(4);
      expect(summary.failed.map((f: { statementDate: string }) => f.statementDate.slice(0, 7)).sort()).toEqual(["2025-01", "2025-02", "2025-03", "2025-04"]);
      for (const failure of summary.failed) {
        expect(failure).toMatchObject({ accountId: ACCOUNT, file: expect.stringMatching(new RegExp(`^${ACCOUNT_DIR}/2025-0[1-4]`)) });
        expect(failure.error).toMatchObject({ status: 500, code: "500", message: "Internal server error", debugMessage: "storage node down" });
      }
      expect(result.stderr.match(/FAILED {3}ACC-1003 2025-0[1-4]-\d\d .*Internal server error \(HTTP 500, FDX code 500\)/g)).toHaveLength(4);

      const files = await inspect(dir);
      expect(files.names).toHaveLength(AVAILABLE - 4);
      expect(files.incomplete).toEqual([]);
      expect(files.hidden).toEqual([]);
      expect((await manifest(dir)).map((e) => e.file).sort()).toEqual(files.names);
      expect(maxInFlight).toBeGreaterThanOrEqual(1);
      expect(maxInFlight).toBeLessThanOrEqual(3);

      // The text summary lists them with the FDX code and debugMessage, under a headline that says so.
      const again = await runCli(exportArgs(urls, "--max-retries", "0"));
      expect(again.code).toBe(1);
      expect(again.stdout).not.toContain("Export finished");
      expect(again.stdout).toMatch(/^Export incomplete: 4 statement\(s\) failed: sandbox-bank/);
      expect(again.stdout).toMatch(/^ {2}failed {11}4$/m);
      expect(again.stdout).toContain("Failed:");
      expect(again.stdout).toMatch(/ACC-1003 +2025-03-31 .*Internal server error \[HTTP 500 code 500\] \(storage node down\)/);
    } finally {
      await proxy.close();
    }
  });

  /**
   * The first PDFs are sent whole; every later one sends its headers and half
   * its bytes, then waits. With `release`, the waiting ones are completed
   * once the CLI says it is interrupted: a download the abort failed to
   * cancel would then finish and be saved.
   */
  async function stalledRun(options: { release?: boolean; nodeArgs?: string[]; kill: "SIGINT" | "SIGKILL" }) {
    const SERVED_IN_FULL = 3;
    let served = 0;
    const stalled: { res: ServerResponse; rest: Uint8Array }[] = [];
    let onStall: () => void = () => {};
    const proxy = await startProxy(mock.baseUrl, {
      pdfBody(bytes, _req, res) {
        if (served < SERVED_IN_FULL) {
          served++;
          res.end(bytes);
          return;
        }
        const half = bytes.byteLength >> 1;
        res.write(bytes.subarray(0, half));
        stalled.push({ res, rest: bytes.subarray(half) });
        onStall();
      },
    });
    try {
      const urls = { baseUrl: proxy.url, productsUrl: `${proxy.url}/products` };
      const cli = startCli(exportArgs(urls, "--json", "--concurrency", "2"), {}, options.nodeArgs);
      const twoStalled = new Promise<void>((resolve) => {
        onStall = () => stalled.length >= 2 && resolve();
      });
      await cli.waitFor(({ stderr }) => (stderr.match(/ saved {4}/g) ?? []).length >= SERVED_IN_FULL, "the first downloads");
      await twoStalled;
      // Both workers are now inside a download: wait until each has its temporary file open.
      const parts = async () => (await walk(dir)).filter((n) => n.endsWith(".part"));
      while ((await parts()).length < 2) await new Promise((r) => setTimeout(r, 20));

      cli.child.kill(options.kill);
      if (options.release) {
        await cli.waitFor(({ stderr }) => stderr.includes("Interrupted: cancelling"), "the interruption notice");
        for (const { res, rest } of stalled) if (!res.destroyed) res.end(rest);
      }
      const result = await cli.done;
      return { result, servedInFull: SERVED_IN_FULL, parts: await parts() };
    } finally {
      await proxy.close();
    }
  }

  async function expectCleanInterruption(run: Awaited<ReturnType<typeof stalledRun>>) {
    expect(run.result.code).toBe(130);
    expect(run.result.stderr).toContain("Interrupted");
    const summary = JSON.parse(run.result.stdout);
    expect(summary).toMatchObject({ interrupted: true, downloaded: run.servedInFull, failed: [] });
    const files = await inspect(dir);
    expect(files.hidden).toEqual([]);
    expect(files.incomplete).toEqual([]);
    expect(files.names).toHaveLength(run.servedInFull);
    expect(await expectManifestMatchesFiles(dir)).toHaveLength(run.servedInFull);
  }

  it("Ctrl-C mid-way cancels the downloads in flight, leaves no partial or temporary file, prints the summary and exits 130; a rerun completes", async () => {
    const run = await stalledRun({ kill: "SIGINT" });
    await expectCleanInterruption(run);
    const resumed = await runCli(exportArgs(mock, "--json"));
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ downloaded: AVAILABLE - run.servedInFull, alreadyPresent: run.servedInFull });
    expect((await inspect(dir)).names).toHaveLength(AVAILABLE);
  });

  it("Ctrl-C cancels downloads even when a garbage collection has cut the request's abort link (the client enforces the signal)", async () => {
    // On Node 20 a collection can detach a Request's signal from the one it follows (nodejs/node#55428). A preload
    // makes the CLI collect garbage on SIGINT, before it aborts; the released bodies must still not be saved.
    const collectOnSigint = "data:text/javascript,process.on('SIGINT',()=>globalThis.gc())";
    await expectCleanInterruption(await stalledRun({ kill: "SIGINT", release: true, nodeArgs: ["--expose-gc", "--import", collectOnSigint] }));
  });

  it("SIGKILL mid-run leaves .part files; the rerun removes them, downloads only the rest, and every manifest entry matches its file", async () => {
    const run = await stalledRun({ kill: "SIGKILL" });
    expect(run.result.signal).toBe("SIGKILL");
    // What a hard kill leaves: temporary files, and the manifest lines of what was saved before.
    expect(run.parts.length).toBeGreaterThanOrEqual(2);
    expect(await manifest(dir)).toHaveLength(run.servedInFull);

    const resumed = await runCli(exportArgs(mock, "--json"));
    expect(resumed.code).toBe(0);
    const summary = JSON.parse(resumed.stdout);
    expect(summary).toMatchObject({
      downloaded: AVAILABLE - run.servedInFull,
      alreadyPresent: run.servedInFull,
      removedPartFiles: run.parts.length,
      failed: [],
    });
    const files = await inspect(dir);
    expect(files.hidden).toEqual([]);
    expect(files.incomplete).toEqual([]);
    expect(files.names).toHaveLength(AVAILABLE);
    const entries = await expectManifestMatchesFiles(dir);
    expect(entries.map((e) => e.file).sort()).toEqual(files.names);
  });

  it("a document served as application/pdf that is not one (an HTML page) is a failed statement: nothing saved, reported, exit 1", async () => {
    // The statements of 2025-01 to 2025-03 come back as a sign-in page, still labelled a PDF.
    const proxy = await startProxy(mock.baseUrl, {
      pdfBody(bytes, req, res) {
        res.end(/%7C2025-0[1-3]%2F/.test(req.url ?? "") ? Buffer.from("<!doctype html><title>Sign in</title>".padEnd(bytes.byteLength)) : bytes);
      },
    });
    try {
      const urls = { baseUrl: proxy.url, productsUrl: `${proxy.url}/products` };
      const result = await runCli(exportArgs(urls, "--json"));
      expect(result.code).toBe(1);
      const summary = JSON.parse(result.stdout);
      expect(summary.downloaded).toBe(AVAILABLE - 3);
      expect(summary.failed).toHaveLength(3);
      for (const failure of summary.failed) expect(failure.error.message).toMatch(/do not start with %PDF-/);
      const files = await inspect(dir);
      expect(files.names).toHaveLength(AVAILABLE - 3);
      expect(files.incomplete).toEqual([]);
      expect(files.hidden).toEqual([]);
      expect((await manifest(dir)).map((e) => e.file).sort()).toEqual(files.names);
    } finally {
      await proxy.close();
    }
  });

  it("statement ids that are not strings are reported and known by their links: the manifest reads back, and a rerun appends nothing", async () => {
    const proxy = await startProxy(mock.baseUrl, {
      transformJson(body) {
        const page = body as { statements?: Record<string, unknown>[] };
        page.statements?.forEach((s, i) => {
          // A number from the statement's month (one statement a month), or an object.
          s.statementId = i % 2 === 0 ? Number(String(s.statementDate).slice(0, 7).replace("-", "")) : { id: s.statementId };
        });
        return page;
      },
    });
    try {
      const urls = { baseUrl: proxy.url, productsUrl: `${proxy.url}/products` };
      const first = await runCli(exportArgs(urls, "--json"));
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toMatchObject({ downloaded: AVAILABLE, failed: [] });
      expect(first.stderr).toMatch(/statementId is not a string \(20\d{4}\): it is known by its link/);
      const entries = await expectManifestMatchesFiles(dir);
      expect(entries).toHaveLength(AVAILABLE);
      for (const entry of entries) expect(entry.statementId).toBeNull();

      const second = await runCli(exportArgs(urls, "--json"));
      expect(second.code).toBe(0);
      expect(JSON.parse(second.stdout)).toMatchObject({ downloaded: 0, alreadyPresent: AVAILABLE });
      expect(second.stderr).not.toMatch(/unreadable line/);
      expect(await manifest(dir)).toEqual(entries);
    } finally {
      await proxy.close();
    }
  });

  it("empty statement ids are known by their links: every statement is exported once, none taken for a repeat of another", async () => {
    const proxy = await startProxy(mock.baseUrl, {
      transformJson(body) {
        const page = body as { statements?: Record<string, unknown>[] };
        for (const s of page.statements ?? []) s.statementId = "";
        return page;
      },
    });
    try {
      const urls = { baseUrl: proxy.url, productsUrl: `${proxy.url}/products` };
      const first = await runCli(exportArgs(urls, "--json"));
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toMatchObject({ listed: AVAILABLE + 2, duplicates: 0, downloaded: AVAILABLE, failed: [] });
      expect((await inspect(dir)).names).toHaveLength(AVAILABLE);
      const second = await runCli(exportArgs(urls, "--json"));
      expect(JSON.parse(second.stdout)).toMatchObject({ downloaded: 0, alreadyPresent: AVAILABLE });
    } finally {
      await proxy.close();
    }
  });

  it("names files only from the date shape and a hash: hostile statement data cannot escape the directory", async () => {
    const proxy = await startProxy(mock.baseUrl, {
      transformJson(body) {
        const page = body as { statements?: Record<string, unknown>[] };
        page.statements?.forEach((s, i) => {
          if (i % 3 === 0) s.statementDate = "../../../escape";
          else if (i % 3 === 1) s.statementDate = `2025-01-01/../../x${i}`;
          s.statementId = `../../${String(s.statementId)}/..`;
        });
        return page;
      },
    });
    // Two levels of our own above the output: whatever escaped would land there (the system's tmpdir is shared).
    const nested = join(dir, "outer", "out");
    try {
      const urls = { baseUrl: proxy.url, productsUrl: `${proxy.url}/products` };
      const result = await runCli(["statements", "export", ...RANGE, "--out", nested, ...mockFlags(urls), "--json"]);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ downloaded: AVAILABLE, failed: [] });
      const files = await inspect(nested);
      expect(files.names).toHaveLength(AVAILABLE);
      for (const name of files.names) expect(name).toMatch(new RegExp(`^${ACCOUNT_DIR}/(undated|\\d{4}-\\d{2}-\\d{2})_[0-9a-f]{16}\\.pdf$`));
      expect(files.names.filter((n) => n.includes("/undated_")).length).toBeGreaterThan(0);
      expect(await readdir(dir)).toEqual(["outer"]);
      expect(await readdir(join(dir, "outer"))).toEqual(["out"]);
      expect((await readdir(nested)).sort()).toEqual([ACCOUNT_DIR, "manifest.jsonl"]);
    } finally {
      await proxy.close();
    }
  });
});

describe("statements export: many accounts", () => {
  it("two accounts with no --from/--to: two years up to now, each account in its own directory", async () => {
    const accounts = ["ACC-1001", "ACC-1002"];
    const result = await runCli([
      "statements",
      "export",
      "--provider",
      "sandbox-bank",
      "--account",
      accounts[0]!,
      "--account",
      accounts[1]!,
      "--out",
      dir,
      ...mockFlags(mock),
      "--json",
    ]);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    // The default range: --to is now, --from two years before it.
    const from = new Date(summary.from);
    const to = new Date(summary.to);
    expect(Math.abs(to.getTime() - Date.now())).toBeLessThan(5 * 60_000);
    const expectedFrom = new Date(to);
    expectedFrom.setUTCFullYear(to.getUTCFullYear() - 2);
    expect(from.toISOString()).toBe(expectedFrom.toISOString());

    const entries = await expectManifestMatchesFiles(dir);
    for (const accountId of accounts) {
      const listed = await listWindows(accountId, summary.windows);
      const expected = [...new Map(listed.filter(downloadable).map((s) => [s.statementId, s])).keys()].sort();
      const mine = entries.filter((e) => e.accountId === accountId);
      expect(mine.map((e) => e.statementId).sort()).toEqual(expected);
      for (const e of mine) expect(e.file.startsWith(`${accountDirName(accountId)}/`)).toBe(true);
    }
    // Never the same file for two accounts.
    expect(new Set(entries.map((e) => e.file)).size).toBe(entries.length);
    expect((await inspect(dir)).names).toHaveLength(entries.length);
  });

  it("a five-year range is read in windows of at most a year: nothing lost at an edge, nothing doubled", async () => {
    const accounts = seedAccounts();
    const accountsFile = join(dir, "..", `${dir.split("/").at(-1)}-accounts.txt`);
    await writeFile(accountsFile, `# every seeded account\n${accounts.join("\n")}\n\n`);
    try {
      const out = join(dir, "out");
      // 2021-10-31 → the windows' edges fall on October 31, 00:00 UTC: a seeded statement's date (2025-10-31).
      const result = await runCli([
        "statements",
        "export",
        "--provider",
        "sandbox-bank",
        "--accounts-file",
        accountsFile,
        "--from",
        "2021-10-31",
        "--to",
        "2026-10-31",
        "--out",
        out,
        ...mockFlags(mock),
        "--json",
      ]);
      const summary = JSON.parse(result.stdout);
      expect(result.code, result.stderr).toBe(0);
      expect(summary.windows.length).toBeGreaterThanOrEqual(5);
      for (const w of summary.windows) {
        const end = new Date(w.end);
        const limit = new Date(w.start);
        limit.setUTCFullYear(limit.getUTCFullYear() + 1);
        expect(end.getTime()).toBeLessThanOrEqual(limit.getTime());
      }
      expect(summary.windows.map((w: { start: string }) => w.start)).toContain("2025-10-31T00:00:00.000Z");

      const entries = await expectManifestMatchesFiles(out);
      // No duplicates: one line, one file per statement.
      expect(new Set(entries.map((e) => e.file)).size).toBe(entries.length);
      expect(new Set(entries.map((e) => `${e.accountId}\n${e.statementId}`)).size).toBe(entries.length);
      let edgeListings = 0;
      for (const accountId of accounts) {
        const listed = await listWindows(accountId, summary.windows);
        const unique = new Map(listed.map((s) => [s.statementId, s]));
        edgeListings += listed.length - unique.size;
        // No gaps: every statement any window lists (and the service can serve) is saved.
        const expected = [...unique.values()]
          .filter(downloadable)
          .map((s) => s.statementId)
          .sort();
        expect(
          entries
            .filter((e) => e.accountId === accountId)
            .map((e) => e.statementId)
            .sort(),
          accountId,
        ).toEqual(expected);
        const account = summary.accounts.find((a: { accountId: string }) => a.accountId === accountId);
        expect(account.listed).toBe(unique.size);
        expect(account.noStatements, accountId).toBe(listed.none);
        expect(summary.noStatements.includes(accountId), accountId).toBe(listed.none);
      }
      // The statement dated on an edge was listed by two windows and saved once.
      expect(edgeListings).toBeGreaterThan(0);
      expect(summary.duplicates).toBe(edgeListings);
      expect(summary.listed).toBe(entries.length + summary.unavailable.length);
    } finally {
      await rm(accountsFile, { force: true });
    }
  });

  it("shards 1/2 and 2/2, run at once into one directory, together export the whole, each account once", async () => {
    const accounts = [...seedAccounts(), "ACC-1001 ", "# a comment"].filter((a) => !a.startsWith("#")).map((a) => a.trim());
    const flags = [...new Set(accounts)].flatMap((a) => ["--account", a]);
    const args = (out: string, ...extra: string[]) => [
      "statements",
      "export",
      "--provider",
      "sandbox-bank",
      ...flags,
      "--from",
      "2025-01-01",
      "--to",
      "2026-10-31",
      "--out",
      out,
      ...mockFlags(mock),
      "--json",
      ...extra,
    ];
    const shared = join(dir, "shards");
    const [one, two, whole] = await Promise.all([
      runCli(args(shared, "--shard", "1/2")),
      runCli(args(shared, "--shard", "2/2")),
      runCli(args(join(dir, "whole"))),
    ]);
    for (const r of [one, two, whole]) expect(r.code, r.stderr).toBe(0);
    const s1 = JSON.parse(one.stdout);
    const s2 = JSON.parse(two.stdout);
    expect(s1.shard).toBe("1/2");
    const ids = (s: { accounts: { accountId: string }[] }) => s.accounts.map((a) => a.accountId);
    // Disjoint, and together every account, each where the documented hash puts it.
    expect(ids(s1).filter((id) => ids(s2).includes(id))).toEqual([]);
    expect([...ids(s1), ...ids(s2)].sort()).toEqual([...new Set(accounts)].sort());
    for (const id of ids(s1)) expect(shardOf(id, 2)).toBe(1);
    for (const id of ids(s2)) expect(shardOf(id, 2)).toBe(2);

    const sharded = await expectManifestMatchesFiles(shared);
    const single = await expectManifestMatchesFiles(join(dir, "whole"));
    const view = (entries: Entry[]) => entries.map((e) => `${e.file} ${e.sha256}`).sort();
    expect(view(sharded)).toEqual(view(single));
    expect(new Set(sharded.map((e) => e.file)).size).toBe(sharded.length);
    expect(s1.downloaded + s2.downloaded).toBe(JSON.parse(whole.stdout).downloaded);
  });

  it("an account without statements (404, FDX 1108) is reported as empty and is no failure; an unknown account is", async () => {
    // The proxy makes ACC-1002 an account the provider holds no statements for, whatever the seed.
    const proxy = await startProxy(mock.baseUrl, {
      intercept(req, res) {
        if (/\/statements\/v2\/sandbox-bank\/ACC-1002\?/.test(req.url ?? "")) {
          res.writeHead(404, { "content-type": "application/json" });
          res.end(JSON.stringify({ code: 1108, message: "Statements not found for given Account" }));
          return true;
        }
        return false;
      },
    });
    try {
      const urls = { baseUrl: proxy.url, productsUrl: `${proxy.url}/products` };
      const base = ["statements", "export", "--provider", "sandbox-bank", "--account", "ACC-1001", "--account", "ACC-1002", "--out", dir, ...mockFlags(urls)];
      const ok = await runCli([...base, "--json"]);
      expect(ok.code, ok.stderr).toBe(0);
      const summary = JSON.parse(ok.stdout);
      expect(summary.noStatements).toEqual(["ACC-1002"]);
      expect(summary.failed).toEqual([]);
      expect(summary.listFailed).toEqual([]);
      expect(summary.accounts.find((a: { accountId: string }) => a.accountId === "ACC-1001").downloaded).toBeGreaterThan(0);
      expect(ok.stderr).toContain("ACC-1002: no statements listed");

      const text = await runCli(base);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^Export finished/);
      expect(text.stdout).toMatch(/^ {2}no statements {4}1 account\(s\)$/m);

      const unknown = await runCli([...base, "--account", "ACC-404"]);
      expect(unknown.code).toBe(4);
      expect(unknown.stderr).toMatch(/ACC-404: the statement list could not be read\nerror: .* \(HTTP 404, FDX code 701\)/);
      expect(unknown.stdout).not.toContain("Export finished");
      expect(unknown.stdout).toMatch(/^Export incomplete: the statement list of 1 account\(s\) could not be read: /);
    } finally {
      await proxy.close();
    }
  });
});

describe("statements export: refused credentials", () => {
  it("stop the run at the first list: exit 3, the error, and no summary that could pass for a result", async () => {
    const result = await runCli([
      "statements",
      "export",
      "--provider",
      "sandbox-bank",
      "--account",
      "ACC-1001",
      "--account",
      "ACC-1002",
      "--out",
      dir,
      ...mockFlags(mock, "wrong.token"),
    ]);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^error: .*\(HTTP 401, FDX code 1205\)\n/m);
    expect(result.stderr).not.toContain("ACC-1002");
    expect((await inspect(dir)).names).toEqual([]);
  });
});

describe("statements export: rate limits", () => {
  it("against a rate-limited sandbox: every worker pauses together, the concurrency drops, and no download fails", async () => {
    const limited = await startMockServer({ port: 0, token: TOKEN, rateLimit: { limit: 10, windowMs: 1000 } });
    try {
      const result = await runCli([
        "statements",
        "export",
        "--provider",
        "sandbox-bank",
        "--account",
        "ACC-1001",
        "--account",
        "ACC-1002",
        "--from",
        "2025-06-01",
        "--to",
        "2026-10-31",
        "--concurrency",
        "4",
        "--out",
        dir,
        ...mockFlags(limited),
        "--json",
      ]);
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout);
      expect(summary.failed).toEqual([]);
      expect(summary.downloaded).toBeGreaterThan(20);
      // It did meet the limit, and reacted once per burst rather than once per worker.
      expect(summary.rateLimit.rateLimited).toBeGreaterThan(0);
      expect(summary.rateLimit.pauses).toBeGreaterThan(0);
      expect(summary.rateLimit.pauses).toBeLessThanOrEqual(summary.rateLimit.rateLimited);
      expect(summary.rateLimit.minLimit).toBeLessThan(4);
      expect(result.stderr).toMatch(/Rate limited: every worker pauses \d.*; concurrency 4 -> 2/);
      await expectManifestMatchesFiles(dir);
    } finally {
      await limited.close();
    }
  });

  it("after the first 429 it paces its requests at the quota learned: the limit is met once or twice in the whole run, not once a window", async () => {
    // 10 requests a second: the two accounts' 47 downloads and 4 list pages take at least five windows.
    const limited = await startMockServer({ port: 0, token: TOKEN, rateLimit: { limit: 10, windowMs: 1000 } });
    const range = ["--provider", "sandbox-bank", "--account", "ACC-1001", "--account", "ACC-1002", "--from", "2024-11-01", "--to", "2026-10-31"];
    const free = await mkdtemp(join(tmpdir(), "fdxkit-cli-export-free-"));
    try {
      const result = await runCli(["statements", "export", ...range, "--out", dir, ...mockFlags(limited), "--json"]);
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout);
      expect(summary.failed).toEqual([]);
      expect(summary.downloaded).toBe(47);
      // Without the pace each window's burst meets the limit again (5 pauses and 11 429s measured with the pace
      // turned off); with it, the first window's burst does (at most the four requests in flight). The pace's window
      // is only 50 ms longer than the provider's, so on a loaded machine a request held up that long between its
      // turn and its arrival can meet the limit again: once or twice more in a run, never once a window.
      expect(summary.rateLimit.pauses).toBeGreaterThanOrEqual(1);
      expect(summary.rateLimit.pauses).toBeLessThanOrEqual(3);
      expect(summary.rateLimit.rateLimited).toBeLessThanOrEqual(8);
      expect(result.stderr).toMatch(
        /Rate limited: every worker pauses 1(\.0)? s; concurrency 4 -> 2\nPacing requests: at most \d+ per 1050 ms \(learned from the answers before the 429\)/,
      );
      // The pace keeps within the provider's 10 a second.
      expect(summary.rateLimit.pace.requests).toBeGreaterThan(0);
      expect(summary.rateLimit.pace.requests).toBeLessThanOrEqual(10);
      expect(summary.rateLimit.pace.windowMs).toBe(1050);
      // The same files, byte for byte, as an export that met no limit.
      const entries = await expectManifestMatchesFiles(dir);
      const unlimited = await runCli(["statements", "export", ...range, "--out", free, ...mockFlags(mock), "--json"]);
      expect(unlimited.code, unlimited.stderr).toBe(0);
      const digests = (list: Entry[]) => list.map((e) => `${e.file} ${e.sha256}`).sort();
      expect(digests(entries)).toEqual(digests(await manifest(free)));
    } finally {
      await limited.close();
      await rm(free, { recursive: true, force: true });
    }
  });
});
