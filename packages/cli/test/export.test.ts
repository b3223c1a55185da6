import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { IncomingMessage, ServerResponse } from "node:http";
import { startMockServer, type MockServer } from "@fdxkit/mock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
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
const RANGE = ["--provider", "sandbox-bank", "--account", "ACC-1003", "--from", "2024-11-01", "--to", "2026-10-31"];
const AVAILABLE = 22;

function exportArgs(urls: { baseUrl: string; productsUrl: string }, ...extra: string[]): string[] {
  return ["statements", "export", ...RANGE, "--out", dir, ...mockFlags(urls), ...extra];
}

/** Every file in the directory: names, and whether each is a whole PDF. */
async function inspect(directory: string): Promise<{ names: string[]; hidden: string[]; incomplete: string[] }> {
  const entries = await readdir(directory);
  const names = entries.filter((n) => !n.startsWith(".")).sort();
  const incomplete: string[] = [];
  for (const name of names) {
    const bytes = await readFile(join(directory, name));
    const text = bytes.toString("latin1");
    if (!text.startsWith("%PDF-") || !text.trimEnd().endsWith("%%EOF")) incomplete.push(name);
  }
  return { names, hidden: entries.filter((n) => n.startsWith(".")), incomplete };
}

/** The PDF the mock serves for a statement, for a byte-for-byte comparison. */
async function mockPdf(href: string): Promise<Buffer> {
  const response = await fetch(new URL(href, mock.baseUrl), { headers: { Authorization: `Bearer ${TOKEN}` } });
  return Buffer.from(await response.arrayBuffer());
}

describe("statements export", () => {
  it("downloads every available statement as a PDF, skips PROCESSING and FAILED, and a re-run downloads nothing", async () => {
    const first = await runCli(exportArgs(mock, "--json"));
    expect(first.code).toBe(0);
    const summary = JSON.parse(first.stdout);
    expect(summary).toMatchObject({ listed: 24, downloaded: AVAILABLE, alreadyPresent: 0, failed: [], interrupted: false, listError: null });
    expect(summary.unavailable.map((u: { status: string }) => u.status).sort()).toEqual(["FAILED", "PROCESSING"]);

    const files = await inspect(dir);
    expect(files.names).toHaveLength(AVAILABLE);
    expect(files.incomplete).toEqual([]);
    expect(files.hidden).toEqual([]);
    for (const name of files.names) expect(name).toMatch(/^\d{4}-\d{2}-\d{2}_[0-9a-f]{16}\.pdf$/);
    expect(summary.bytes).toBe((await Promise.all(files.names.map((n) => readFile(join(dir, n))))).reduce((sum, b) => sum + b.byteLength, 0));
    // Not available ones have no file: no 2025-08-31 nor 2026-10-31.
    expect(files.names.some((n) => n.startsWith("2025-08-31") || n.startsWith("2026-10-31"))).toBe(false);

    // Byte for byte what the service serves.
    const listed = await runCli(["statements", "list", "--provider", "sandbox-bank", "--account", "ACC-1003", "--from", "2026-09-30", "--to", "2026-09-30", ...mockFlags(mock), "--json"]);
    const [september] = JSON.parse(listed.stdout);
    const septemberFile = files.names.find((n) => n.startsWith("2026-09-30"))!;
    expect((await readFile(join(dir, septemberFile))).equals(await mockPdf(september.links[0].href))).toBe(true);

    // Resumed: everything already complete, nothing downloaded, same files.
    const second = await runCli(exportArgs(mock, "--json"));
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ listed: 24, downloaded: 0, alreadyPresent: AVAILABLE, bytes: 0 });
    expect((await inspect(dir)).names).toEqual(files.names);
  });

  it("prints plain progress lines without a terminal and a readable summary", async () => {
    const result = await runCli(exportArgs(mock, "--concurrency", "2"));
    expect(result.code).toBe(0);
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(24);
    expect(lines.filter((l) => / saved {4}\d{4}-\d{2}-\d{2}_[0-9a-f]{16}\.pdf \(\d/.test(l))).toHaveLength(AVAILABLE);
    expect(lines.filter((l) => /skipped .*\((PROCESSING|FAILED)\)$/.test(l))).toHaveLength(2);
    expect(lines.at(-1)).toMatch(/^\[24\/24\] /);
    expect(result.stdout).toMatch(/^Export finished: sandbox-bank \/ ACC-1003 -> /);
    expect(result.stdout).toMatch(/^ {2}downloaded {7}22 \(\d/m);
    expect(result.stdout).toMatch(/^ {2}not available {4}2 \(PROCESSING 1, FAILED 1\)$/m);
    expect(result.stdout).toMatch(/^ {2}failed {11}0$/m);
    expect(result.stdout).toContain("Not available (skipped):");
  });

  it("an existing complete file is kept, a missing one is fetched again", async () => {
    await runCli(exportArgs(mock));
    const before = await inspect(dir);
    const [removed, kept] = before.names;
    await rm(join(dir, removed!));
    const keptPath = join(dir, kept!);
    const keptBytes = await readFile(keptPath);
    const result = await runCli(exportArgs(mock, "--json"));
    expect(JSON.parse(result.stdout)).toMatchObject({ downloaded: 1, alreadyPresent: AVAILABLE - 1 });
    expect((await inspect(dir)).names).toEqual(before.names);
    expect((await readFile(keptPath)).equals(keptBytes)).toBe(true);
  });

  it("a failed download is counted and reported; the others are saved; exit 1", async () => {
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
        expect(failure.error).toMatchObject({ status: 500, code: "500", message: "Internal server error", debugMessage: "storage node down" });
      }
      expect(result.stderr.match(/FAILED {3}2025-0[1-4]-\d\d .*Internal server error \(HTTP 500, FDX code 500\)/g)).toHaveLength(4);

      const files = await inspect(dir);
      expect(files.names).toHaveLength(AVAILABLE - 4);
      expect(files.incomplete).toEqual([]);
      expect(files.hidden).toEqual([]);
      expect(files.names.some((n) => /^2025-0[1-4]/.test(n))).toBe(false);
      expect(maxInFlight).toBeGreaterThanOrEqual(1);
      expect(maxInFlight).toBeLessThanOrEqual(3);

      // The text summary lists them with the FDX code and debugMessage.
      const again = await runCli(exportArgs(urls, "--max-retries", "0"));
      expect(again.code).toBe(1);
      expect(again.stdout).toMatch(/^ {2}failed {11}4$/m);
      expect(again.stdout).toContain("Failed:");
      expect(again.stdout).toMatch(/2025-03-31 .*Internal server error \[HTTP 500 code 500\] \(storage node down\)/);
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
  async function interruptedRun(options: { release: boolean; nodeArgs?: string[] }) {
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
      while ((await readdir(dir)).filter((n) => n.endsWith(".part")).length < 2) await new Promise((r) => setTimeout(r, 20));

      cli.child.kill("SIGINT");
      if (options.release) {
        await cli.waitFor(({ stderr }) => stderr.includes("Interrupted: cancelling"), "the interruption notice");
        for (const { res, rest } of stalled) if (!res.destroyed) res.end(rest);
      }
      const result = await cli.done;
      expect(result.code).toBe(130);
      expect(result.stderr).toContain("Interrupted");
      const summary = JSON.parse(result.stdout);
      expect(summary).toMatchObject({ interrupted: true, downloaded: SERVED_IN_FULL, failed: [] });

      const files = await inspect(dir);
      expect(files.hidden).toEqual([]);
      expect(files.incomplete).toEqual([]);
      expect(files.names).toHaveLength(SERVED_IN_FULL);
    } finally {
      await proxy.close();
    }
    return SERVED_IN_FULL;
  }

  it("Ctrl-C mid-way cancels the downloads in flight, leaves no partial or temporary file, prints the summary and exits 130; a re-run completes", async () => {
    const servedInFull = await interruptedRun({ release: false });
    // Resumed against the mock directly: the rest is downloaded, nothing twice.
    const resumed = await runCli(exportArgs(mock, "--json"));
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ downloaded: AVAILABLE - servedInFull, alreadyPresent: servedInFull });
    const files = await inspect(dir);
    expect(files.names).toHaveLength(AVAILABLE);
    expect(files.incomplete).toEqual([]);
  });

  it("Ctrl-C cancels downloads even when a garbage collection has cut the request's abort link", async () => {
    // On Node 20 a collection can detach a Request's signal from the one it follows (nodejs/node#55428), so the
    // SDK's abort may never reach the connection. A preload makes the CLI collect garbage on SIGINT, before it aborts.
    const collectOnSigint = "data:text/javascript,process.on('SIGINT',()=>globalThis.gc())";
    await interruptedRun({ release: true, nodeArgs: ["--expose-gc", "--import", collectOnSigint] });
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
    const outer = join(dir, "..");
    const before = new Set(await readdir(outer));
    const nested = join(dir, "out");
    try {
      const urls = { baseUrl: proxy.url, productsUrl: `${proxy.url}/products` };
      const result = await runCli(["statements", "export", ...RANGE, "--out", nested, ...mockFlags(urls), "--json"]);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ downloaded: AVAILABLE, failed: [] });
      const files = await inspect(nested);
      expect(files.names).toHaveLength(AVAILABLE);
      for (const name of files.names) expect(name).toMatch(/^(undated|\d{4}-\d{2}-\d{2})_[0-9a-f]{16}\.pdf$/);
      expect(files.names.filter((n) => n.startsWith("undated_")).length).toBeGreaterThan(0);
      expect(await readdir(dir)).toEqual(["out"]);
      expect(new Set(await readdir(outer))).toEqual(before);
    } finally {
      await proxy.close();
    }
  });

  it("an unreadable statement list is reported with its exit code (404 → 4)", async () => {
    const result = await runCli(["statements", "export", "--provider", "sandbox-bank", "--account", "ACC-404", "--from", "2025-01-01", "--to", "2025-12-31", "--out", dir, ...mockFlags(mock)]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("FDX code 701");
    expect(result.stdout).toMatch(/listed {11}0/);
  });

  it("bad flags are usage errors (exit 2) and write nothing", async () => {
    const target = join(dir, "never");
    for (const extra of [["--concurrency", "0"], ["--concurrency", "x"], ["--to", "2025-13-01"]]) {
      const result = await runCli([...exportArgs(mock), "--out", target, ...extra]);
      expect(result.code).toBe(2);
    }
    const missingOut = await runCli(["statements", "export", ...RANGE, ...mockFlags(mock)]);
    expect(missingOut.code).toBe(2);
    expect(missingOut.stderr).toContain("--out");
    await expect(readdir(target)).rejects.toThrow();
  });

  it("a file that is in the way of a statement is not overwritten: counted as present", async () => {
    await runCli(exportArgs(mock));
    const [first] = (await inspect(dir)).names;
    await writeFile(join(dir, first!), "%PDF-1.7 placeholder kept by the operator\n%%EOF\n");
    const result = await runCli(exportArgs(mock, "--json"));
    expect(JSON.parse(result.stdout)).toMatchObject({ downloaded: 0, alreadyPresent: AVAILABLE });
    expect(await readFile(join(dir, first!), "utf8")).toContain("placeholder");
  });
});
