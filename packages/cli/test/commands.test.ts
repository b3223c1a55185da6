import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { startMockServer, type MockServer } from "@fdxkit/mock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, mockFlags, runCli, startServer, TOKEN, type TestServer } from "./helpers.js";

let mock: MockServer;
let flags: string[];

beforeAll(async () => {
  assertBuilt();
  mock = await startMockServer({ port: 0, token: TOKEN });
  flags = mockFlags(mock);
});
afterEach(() => mock.reset());
afterAll(() => mock.close());

/** Runs the CLI against the mock with --json and parses stdout. */
async function json<T = unknown>(args: string[]): Promise<{ code: number | null; data: T; stderr: string }> {
  const result = await runCli([...args, ...flags, "--json"]);
  if (result.code !== 0) throw new Error(`exit ${result.code}\n${result.stderr}`);
  return { code: result.code, data: JSON.parse(result.stdout) as T, stderr: result.stderr };
}

describe("subscriptions", () => {
  it("create, list, get, update, test and delete, as JSON", async () => {
    const receiver = await startServer((_req, res) => res.end());
    try {
      const created = await json<{ subscriptionId: string }>([
        "subscriptions",
        "create",
        "--category",
        "CONSENT",
        "--type",
        "CONSENT_REVOKED",
        "--callback-url",
        `${receiver.url}/hooks`,
        "--allow-insecure-callback-urls",
        "--callback-email",
        "ops@example.com",
      ]);
      expect(created.data).toMatchObject({
        category: "CONSENT",
        type: "CONSENT_REVOKED",
        callbackUrl: `${receiver.url}/hooks`,
        callbackEmail: "ops@example.com",
      });
      const id: string = created.data.subscriptionId;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(mock.subscriptions.map((s) => s.subscriptionId)).toEqual([id]);

      const list = await json(["subscriptions", "list"]);
      expect(list.data).toEqual([created.data]);

      const got = await json(["subscriptions", "get", id]);
      expect(got.data).toEqual(created.data);

      const updated = await json(["subscriptions", "update", id, "--effective-date", "2026-12-01"]);
      expect(updated.data).toMatchObject({ subscriptionId: id, effectiveDate: "2026-12-01" });

      const event = await json(["subscriptions", "test", id]);
      expect(event.data).toMatchObject({ category: "CONSENT", type: "CONSENT_REVOKED", notificationPayload: { idType: "CONSENT" } });
      await mock.idle();
      expect(mock.deliveries()).toHaveLength(1);
      expect(mock.deliveries()[0]).toMatchObject({ subscriptionId: id, status: "delivered" });

      const deleted = await json(["subscriptions", "delete", id]);
      expect(deleted.data).toEqual({ deleted: true, subscriptionId: id });
      expect(mock.subscriptions).toEqual([]);
      expect((await json(["subscriptions", "list"])).data).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it("prints a table by default", async () => {
    await runCli(["subscriptions", "create", "--category", "MAINTENANCE", "--type", "SERVICE", "--callback-url", "https://ops.example.com/hooks", ...flags]);
    const result = await runCli(["subscriptions", "list", ...flags]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^subscriptionId\s+category\s+type\s+callbackUrl/);
    expect(lines[1]).toMatch(/^-+\s+-+/);
    expect(lines[2]).toMatch(/MAINTENANCE\s+SERVICE\s+https:\/\/ops\.example\.com\/hooks/);
    expect(result.stderr).toBe("");
  });

  it("an http callback without --allow-insecure-callback-urls is a validation error (exit 2) and sends nothing", async () => {
    const result = await runCli([
      "subscriptions",
      "create",
      "--category",
      "CONSENT",
      "--type",
      "CONSENT_UPDATED",
      "--callback-url",
      "http://localhost:9/x",
      ...flags,
    ]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe("error: invalid input\n  --callback-url: must be an absolute https: URL\n");
    expect(mock.subscriptions).toEqual([]);
  });

  it("a server-side 400 shows the FDX code and debugMessage (exit 2)", async () => {
    const result = await runCli(["subscriptions", "update", "no-such-id", "--callback-email", "a@example.com", ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("HTTP 400");
    expect(result.stderr).toContain("FDX code 401");
    expect(result.stderr).toContain("debugMessage: subscription id was not found");
  });

  it("update without any field is rejected before sending (exit 2)", async () => {
    const result = await runCli(["subscriptions", "update", "some-id", ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("error: invalid input\n  must set at least one of --callback-url, --effective-date, --callback-email\n");
  });

  it("--json errors are JSON on stderr, and stdout stays empty", async () => {
    const result = await runCli(["subscriptions", "get", "x".repeat(300), ...flags, "--json"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    const report = JSON.parse(result.stderr);
    expect(report.error).toEqual({
      error: "FdxValidationError",
      message: "<id>: must be at most 256 characters",
      issues: [{ path: "<id>", message: "must be at most 256 characters" }],
    });
  });
});

describe("maintenance and consents", () => {
  it("maintenance get prints the notice", async () => {
    const notice = mock.seed.maintenance[0]!;
    const { data } = await json(["maintenance", "get", notice.id!]);
    expect(data).toEqual(notice);
    const text = await runCli(["maintenance", "get", notice.id!, ...flags]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^id\\s+${notice.id}$`, "m"));
    expect(text.stdout).toMatch(/^type\s+PLANNED_OUTAGE$/m);
  });

  it("maintenance get of an unknown id: exit 4 with the FDX code", async () => {
    const result = await runCli(["maintenance", "get", "no-such-notice", ...flags]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("FDX code NotFound");
    expect(result.stdout).toBe("");
  });

  it("consents get prints the grant with its status", async () => {
    const revoked = mock.seed.consents.find((c) => c.status === "REVOKED")!;
    const { data } = await json(["consents", "get", revoked.id!]);
    expect(data).toEqual(revoked);
    const text = await runCli(["consents", "get", revoked.id!, ...flags]);
    expect(text.stdout).toMatch(/^status\s+REVOKED$/m);
    expect(text.stdout).toContain("Parties");
  });

  it("consents get of an unknown id: exit 4 with the service's not-found code, and no debugMessage line", async () => {
    const result = await runCli(["consents", "get", "consent-nope", ...flags]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("error: resource not found (HTTP 404, FDX code NotFound)");
    expect(result.stderr).not.toContain("debugMessage");
  });
});

describe("statements list", () => {
  const provider = () => mock.seed.providerId;

  it("lists all statements across pages, newest first", async () => {
    const { data } = await json<{ statementDate: string }[]>(["statements", "list", "--provider", provider(), "--account", "ACC-1001"]);
    expect(data).toHaveLength(24);
    expect(data[0]!.statementDate.slice(0, 10)).toBe("2026-10-31");
    expect(data[23]!.statementDate.slice(0, 10)).toBe("2024-11-30");
  });

  it("--from/--to take whole days (inclusive) and --limit caps the count", async () => {
    const range = await json<{ statementDate: string; status: string }[]>([
      "statements",
      "list",
      "--provider",
      provider(),
      "--account",
      "ACC-1003",
      "--from",
      "2025-06-30",
      "--to",
      "2025-08-31",
    ]);
    expect(range.data.map((s) => s.statementDate.slice(0, 10))).toEqual(["2025-08-31", "2025-07-31", "2025-06-30"]);
    expect(range.data[0]!.status).toBe("FAILED");
    const limited = await json(["statements", "list", "--provider", provider(), "--account", "ACC-1001", "--limit", "5"]);
    expect(limited.data).toHaveLength(5);
  });

  it("prints a table with dates and statuses", async () => {
    const result = await runCli(["statements", "list", "--provider", provider(), "--account", "ACC-1003", "--limit", "2", ...flags]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[2]).toMatch(/^2026-10-31\s+PROCESSING\s+/);
    expect(lines[3]).toMatch(/^2026-09-30\s+AVAILABLE\s+/);
  });

  it("an unknown account is exit 4; a bad date is exit 2; a range over two years is the server's 400 (exit 2)", async () => {
    const unknown = await runCli(["statements", "list", "--provider", provider(), "--account", "ACC-9", ...flags]);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain("error: Account not found (HTTP 404, FDX code 701)");
    expect(unknown.stderr).toContain('debugMessage: Unknown account "ACC-9"');
    const badDate = await runCli(["statements", "list", "--provider", provider(), "--account", "ACC-1001", "--from", "2025-02-30", ...flags]);
    expect(badDate.code).toBe(2);
    expect(badDate.stderr).toMatch(/^error: --from: must be a date \(YYYY-MM-DD\) or an ISO 8601 date-time .*\(got "2025-02-30"\)\n/);
    const wide = await runCli([
      "statements",
      "list",
      "--provider",
      provider(),
      "--account",
      "ACC-1001",
      "--from",
      "2020-01-01",
      "--to",
      "2025-01-01",
      ...flags,
    ]);
    expect(wide.code).toBe(2);
    expect(wide.stderr).toContain("FDX code 703");
  });
});

describe("exit codes", () => {
  it("2 for bad flags, a missing required option and missing configuration", async () => {
    const unknownOption = await runCli(["consents", "get", "x", "--frobnicate", ...flags]);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain("unknown option");
    const missing = await runCli(["statements", "list", "--provider", "p", ...flags]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--account");
    const noConfig = await runCli(["consents", "get", "x"]);
    expect(noConfig.code).toBe(2);
    expect(noConfig.stderr).toContain("FDXKIT_BASE_URL");
    const noCommand = await runCli([]);
    expect(noCommand.code).toBe(2);
    const badLimit = await runCli(["statements", "list", "--provider", "p", "--account", "a", "--limit", "0", ...flags]);
    expect(badLimit.code).toBe(2);
  });

  it("0 for --help and --version", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: fdxkit");
    const version = await runCli(["--version"]);
    expect(version.code).toBe(0);
    const { version: expected } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(version.stdout.trim()).toBe(expected);
  });

  it("3 for a rejected token", async () => {
    const result = await runCli(["consents", "get", "consent-active-1", ...mockFlags(mock, "wrong-token-value")]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("FDX code 1205");
  });

  it("5 for scheduled maintenance (503) and rate limiting (429)", async () => {
    mock.setMaintenance(true);
    const maintenance = await runCli(["consents", "get", "consent-active-1", ...flags, "--max-retries", "0"]);
    expect(maintenance.code).toBe(5);
    expect(maintenance.stderr).toContain("error: Scheduled Maintenance (HTTP 503, FDX code 503)");
    mock.setMaintenance(false);

    const limited = await startMockServer({ port: 0, token: TOKEN, rateLimit: { limit: 1, windowMs: 600_000 } });
    try {
      const args = ["consents", "get", "consent-active-1", ...mockFlags(limited), "--max-retries", "0"];
      expect((await runCli(args)).code).toBe(0);
      const second = await runCli(args);
      expect(second.code).toBe(5);
      expect(second.stderr).toContain("FDX code 1207");
    } finally {
      await limited.close();
    }
  });

  it("6 when nothing answers", async () => {
    const closed: TestServer = await startServer(() => {});
    const url = closed.url;
    await closed.close();
    const result = await runCli(["consents", "get", "c", "--base-url", url, "--token", TOKEN, "--max-retries", "0"]);
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/^error: /);
  });

  it("6 for a timeout", async () => {
    const silent = await startServer(() => {}); // accepts, never answers
    try {
      const result = await runCli(["consents", "get", "c", "--base-url", silent.url, "--token", TOKEN, "--max-retries", "0", "--timeout", "300"]);
      expect(result.code).toBe(6);
      expect(result.stderr).toContain("timed out");
    } finally {
      await silent.close();
    }
  });

  it("1 for other errors (500 after retries)", async () => {
    mock.failNext(1);
    const result = await runCli(["consents", "get", "consent-active-1", ...flags, "--max-retries", "0"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("(HTTP 500, FDX code 500)");
  });
});

describe("errors in the command's terms", () => {
  const provider = () => mock.seed.providerId;

  it("date flags are named as typed, for list and export alike, never as startTime/endTime", async () => {
    const cases: [string[], RegExp][] = [
      [
        ["statements", "list", "--provider", "p", "--account", "a", "--from", "yesterday"],
        /^error: --from: must be a date \(YYYY-MM-DD\) or an ISO 8601 date-time/,
      ],
      [["statements", "list", "--provider", "p", "--account", "a", "--from", "2025-07-01", "--to", "2025-06-30"], /^error: --from: must not be after --to/],
      [["statements", "export", "--provider", "p", "--account", "a", "--out", "/nonexistent/never", "--to", "2025-13-40"], /^error: --to: must be a date/],
      [
        ["statements", "export", "--provider", "p", "--account", "a", "--out", "/nonexistent/never", "--from", "2030-01-01"],
        /^error: --from: must not be after --to .*--to defaults to now/,
      ],
      [
        ["statements", "export", "--provider", "p", "--account", "a", "--out", "/nonexistent/never", "--shard", "3/2"],
        /^error: --shard: must be I\/N with 1 <= I <= N/,
      ],
      [
        ["statements", "export", "--provider", "p", "--account", "a", "--out", "/nonexistent/never", "--concurrency", "0"],
        /^error: --concurrency must be an integer >= 1/,
      ],
      [
        ["statements", "export", "--provider", "p", "--out", "/nonexistent/never"],
        /^error: give the accounts to export: --account ID \(repeatable\) or --accounts-file FILE/,
      ],
      [["statements", "list", "--provider", provider(), "--account", ".."], /^error: invalid input\n {2}--account: must not be "\." or "\.\."\n$/],
      [
        ["subscriptions", "create", "--category", "NOPE", "--type", "SERVICE", "--callback-url", "https://example.com/x", "--effective-date", "2025-02-30"],
        /^error: invalid input\n {2}--category: must be one of .*\n {2}--effective-date: must be a real date \(YYYY-MM-DD\)\n$/,
      ],
    ];
    for (const [args, expected] of cases) {
      const result = await runCli([...args, ...flags]);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toMatch(expected);
      expect(result.stderr).not.toMatch(/startTime|endTime|accountId|providerId|callbackUrl|effectiveDate|\(input\)/);
      expect(result.stdout).toBe("");
    }
  });

  it("an unknown option is named, even when a required option is missing too", async () => {
    for (const args of [
      ["statements", "export", "--provider", "sandbox-bank", "--acount", "ACC-1001", "--out", "/nonexistent/never"],
      ["statements", "list", "--provider", "sandbox-bank", "--acount", "ACC-1001"],
      ["subscriptions", "create", "--category", "CONSENT", "--callback-ur", "https://example.com/x"],
    ]) {
      const result = await runCli([...args, ...flags]);
      expect(result.code).toBe(2);
      const typo = args.find((a) => a === "--acount" || a === "--callback-ur")!;
      expect(result.stderr).toContain(`error: unknown option '${typo}'`);
      expect(result.stderr).not.toContain("required option");
    }
    // A missing required option alone is still reported as such.
    const missing = await runCli(["statements", "export", "--account", "ACC-1001", "--out", "/nonexistent/never", ...flags]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("error: required option '--provider <id>' not specified");
  });

  it("server text reaches the terminal without its control sequences", async () => {
    const hostile = "no such consent \u001b]0;pwned\u0007\u001b[2J\u001b[31mhere\u001b[0m\u009b1m";
    const server = await startServer((_req, res) => {
      res.statusCode = 404;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ code: 701, message: hostile, debugMessage: "line\nerror: forged \u001b[1mline" }));
    });
    try {
      const text = await runCli(["consents", "get", "c", "--base-url", server.url, "--token", TOKEN]);
      expect(text.code).toBe(4);
      expect(text.stderr).toBe(
        `error: no such consent here (HTTP 404, FDX code 701)\n  debugMessage: line error: forged line\n  request: GET ${server.url}/consents/v1/c\n`,
      );

      const exported = await runCli([
        "statements",
        "export",
        "--provider",
        "p",
        "--account",
        "a",
        "--out",
        `${tmpdir()}/fdxkit-never-${process.pid}`,
        "--base-url",
        server.url,
        "--token",
        TOKEN,
      ]);
      expect(exported.code).toBe(4);
      expect(exported.stderr).toContain(
        "a: the statement list could not be read\nerror: no such consent here (HTTP 404, FDX code 701)\n  debugMessage: line error: forged line\n",
      );
      expect(exported.stdout).toMatch(/^Export incomplete: the statement list of 1 account\(s\) could not be read/);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the assertion is that no control character is left
      for (const out of [exported.stdout, exported.stderr, text.stdout]) expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);

      // --json keeps the server's text as data, escaped by JSON: nothing a terminal acts on.
      const json = await runCli(["consents", "get", "c", "--base-url", server.url, "--token", TOKEN, "--json"]);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the assertion is that no control character is left
      expect(json.stderr).not.toMatch(/[\u001b\u0007\u009b]/);
      expect(JSON.parse(json.stderr).error.message).toBe(hostile);
    } finally {
      await server.close();
    }
  });
});
