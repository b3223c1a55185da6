// `statements export --rate-limit … --rate-budget …` run as users run the CLI
// (the built bin), against a sandbox provider that allows 10 statement calls a
// second (`providerRateLimits`, as `fdxkit-mock --provider-rate-limit`).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startMockServer, type MockServer } from "@fdxkit/mock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { assertBuilt, mockFlags, runCli, startCli } from "./helpers.js";

const LIMIT = { "sandbox-bank": { limit: 10, windowMs: 1000 } };
// Three months of three accounts: 20 statements and 3 lists, over two seconds at 10 a second.
const RANGE = [
  "--provider",
  "sandbox-bank",
  "--account",
  "ACC-1001",
  "--account",
  "ACC-1002",
  "--account",
  "ACC-1004",
  "--from",
  "2026-08-01",
  "--to",
  "2026-10-31",
];
const KEY = Buffer.alloc(32, 9).toString("base64");

let mock: MockServer;
let dir: string;

beforeAll(async () => {
  assertBuilt();
  mock = await startMockServer({ port: 0, token: "mock.token", providerRateLimits: LIMIT });
});
afterAll(async () => {
  await mock?.close();
});
beforeEach(() => {
  mock.reset();
  dir = mkdtempSync(path.join(tmpdir(), "fdxkit-cli-rate-budget-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const exportArgs = (...extra: string[]) => ["statements", "export", ...RANGE, "--out", path.join(dir, "out"), ...mockFlags(mock), "--no-progress", ...extra];

describe("statements export --rate-limit / --rate-budget: bad values", () => {
  it.each([
    [
      ["--rate-limit", "fast", "--rate-budget", "memory"],
      'error: --rate-limit: must be PER_SECOND[/BURST[/RESERVE]] or PROVIDER=PER_SECOND[/BURST[/RESERVE]], requests per second > 0 and a burst >= 1, e.g. 0.9/5 (got "fast")\n',
    ],
    [
      ["--rate-limit", "9/0"],
      'error: --rate-limit: must be PER_SECOND[/BURST[/RESERVE]] or PROVIDER=PER_SECOND[/BURST[/RESERVE]], requests per second > 0 and a burst >= 1, e.g. 0.9/5 (got "9/0")\n',
    ],
    [
      ["--rate-limit", "9"],
      "error: --rate-limit: say where the budget is kept with --rate-budget: a postgres:// URL (shared by every process using it), a directory (an embedded database, one process at a time) or memory (this process only)\n",
    ],
    [
      ["--rate-budget", "memory"],
      "error: --rate-budget: give the provider's limit too, with --rate-limit PER_SECOND[/BURST] (e.g. --rate-limit 0.9/5 for a provider that allows 60 requests a minute)\n",
    ],
    [
      ["--rate-limit", "9", "--rate-budget", "redis://cache:6379"],
      "error: --rate-budget: expected memory, a postgres:// URL or a directory, not a redis: URL\n",
    ],
  ])("%j: exit 2, the flag named, nothing sent or written", async (flags, stderr) => {
    const result = await runCli(exportArgs(...flags));
    expect(result).toMatchObject({ code: 2, stdout: "", stderr });
    expect(mock.rateLimitStats()["sandbox-bank"]).toEqual({ requests: 0, limited: 0 });
    expect(existsSync(path.join(dir, "out"))).toBe(false);
  });

  it("a postgres:// budget whose server does not answer: exit 2 naming --rate-budget, no password shown, nothing sent", async () => {
    const result = await runCli(exportArgs("--rate-limit", "9", "--rate-budget", "postgres://app:hunter2@127.0.0.1:1/app"));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --rate-budget: could not use postgres:\/\/127\.0\.0\.1:1\/app \(.+\)\n$/);
    expect(result.stdout + result.stderr).not.toContain("hunter2");
    expect(mock.rateLimitStats()["sandbox-bank"]).toEqual({ requests: 0, limited: 0 });
  });
});

describe("statements export against a provider that allows 10 calls a second", () => {
  it("without a budget it meets the limit; with --rate-limit 8 (burst 2, within the sizing rule) it never does", async () => {
    const free = await runCli(exportArgs("--json"));
    expect(free.code, free.stderr).toBe(0);
    const freeSummary = JSON.parse(free.stdout);
    expect(freeSummary.downloaded).toBe(3 + 3 + 14);
    expect(freeSummary.rateLimit.rateLimited).toBeGreaterThan(0);
    expect(freeSummary.rateBudget).toBeNull();
    expect(mock.rateLimitStats()["sandbox-bank"]!.limited).toBe(freeSummary.rateLimit.rateLimited);

    mock.reset();
    rmSync(path.join(dir, "out"), { recursive: true, force: true });
    const paced = await runCli(exportArgs("--json", "--rate-limit", "8", "--rate-budget", "memory"));
    expect(paced.code, paced.stderr).toBe(0);
    const summary = JSON.parse(paced.stdout);
    expect(summary.downloaded).toBe(20);
    expect(summary.rateLimit).toMatchObject({ rateLimited: 0, pauses: 0, limit: 4 });
    expect(summary.rateBudget).toEqual({ store: "memory", limits: { limits: {}, default: { perSecond: 8, burst: 2, userReserve: 0.9 } } });
    expect(paced.stderr).toMatch(/^Rate budget: 8\/s, burst 2, 0\.9 kept for users \(every provider\), kept in memory\.\n/);
    expect(mock.rateLimitStats()["sandbox-bank"]).toEqual({ requests: 23, limited: 0 });
    // 23 calls at 8 a second, the first two at once: at least two seconds.
    expect(summary.elapsedMs).toBeGreaterThan(2000);
  });

  it("--rate-budget DIR keeps the budget in an embedded database there, for the runs that follow", async () => {
    const store = path.join(dir, "budget");
    const result = await runCli(exportArgs("--json", "--rate-limit", "sandbox-bank=8", "--rate-budget", store));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`Rate budget: sandbox-bank 8/s, burst 2, 0.9 kept for users, kept in ${store}.\n`);
    expect(JSON.parse(result.stdout).rateLimit.rateLimited).toBe(0);
    expect(mock.rateLimitStats()["sandbox-bank"]).toEqual({ requests: 23, limited: 0 });
    expect(existsSync(path.join(store, "connections"))).toBe(true);
  }, 60_000);
});

describe("statements export --connections --rate-limit: the budget is kept in the connections store", () => {
  it("its table beside the connections; no 429 (the same run without it meets the limit, as above)", async () => {
    const users = await startMockServer({ port: 0, requireUserTokens: true, providerRateLimits: LIMIT });
    try {
      const env = {
        FDXKIT_BASE_URL: users.baseUrl,
        FDXKIT_PRODUCTS_URL: users.productsUrl,
        FDXKIT_ISSUER: users.idpUrl,
        FDXKIT_CLIENT_ID: users.clientId,
        FDXKIT_CLIENT_SECRET: users.clientSecret,
        FDXKIT_STORE: path.join(dir, "store"),
        FDXKIT_ENCRYPTION_KEY: KEY,
      };
      const cli = startCli(["connect", "--connector", "sandbox-bank"], env);
      await cli.waitFor(({ stderr }) => /http:\/\/127\.0\.0\.1:\d+\/auth\?\S+/.test(stderr), "the authorization URL");
      await fetch(await users.authorize(/(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(cli.stderr())![1]!));
      expect((await cli.done).code).toBe(0);

      const run = (...extra: string[]) =>
        runCli(
          [
            "statements",
            "export",
            "--connections",
            "--from",
            "2026-05-01",
            "--to",
            "2026-10-31",
            "--out",
            path.join(dir, "out"),
            "--json",
            "--no-progress",
            ...extra,
          ],
          env,
        );
      // The connection's first calls (the IdP's) are behind it; the export starts in a window of its own.
      const before = users.rateLimitStats()["sandbox-bank"]!;
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const paced = await run("--rate-limit", "8");
      expect(paced.code, paced.stderr).toBe(0);
      const [result] = JSON.parse(paced.stdout);
      expect(result.summary.downloaded).toBe(6 + 6 + 5);
      expect(result.summary.rateLimit.rateLimited).toBe(0);
      expect(paced.stderr).toMatch(
        new RegExp(
          `^Rate budget: 8/s, burst 2, 0\\.9 kept for users \\(every provider\\), kept in the connections store \\(${env.FDXKIT_STORE.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\)\\.\\n`,
          "m",
        ),
      );
      expect(users.rateLimitStats()["sandbox-bank"]!.limited).toBe(before.limited);
    } finally {
      await users.close();
    }
  }, 60_000);
});
