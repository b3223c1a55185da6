import {
  FdxAbortError,
  FdxConnectionError,
  FdxNotFoundError,
  FdxRateLimitError,
  FdxTimeoutError,
  FdxUnauthorizedError,
  FdxValidationError,
} from "@fdxkit/client";
import { describe, expect, it } from "vitest";
import { resolveConfig, secretsFrom } from "../src/config.js";
import { flagRange, parseFlagDate } from "../src/dates.js";
import { ExitCode, exitCodeFor, formatError, UsageError } from "../src/errors.js";
import { statementFileName } from "../src/export/filename.js";
import { Output } from "../src/output.js";

const scope = { providerId: "sandbox-bank", accountId: "ACC-1001" };
const apiInit = (status: number) => ({
  status,
  code: undefined,
  message: "m",
  debugMessage: undefined,
  body: undefined,
  headers: {},
  method: "GET",
  url: "https://api.example.com/x",
});

describe("statementFileName", () => {
  it("is deterministic and depends on provider, account and id", () => {
    const s = { statementId: "stmt:ACC-1001|2025-01/QUN=", statementDate: "2025-01-31T00:00:00.000Z" };
    const name = statementFileName(s, scope)!;
    expect(name).toMatch(/^2025-01-31_[0-9a-f]{16}\.pdf$/);
    expect(statementFileName({ ...s }, scope)).toBe(name);
    expect(statementFileName(s, { ...scope, accountId: "ACC-1002" })).not.toBe(name);
    expect(statementFileName({ ...s, statementId: "other" }, scope)).not.toBe(name);
  });

  it("never lets statement data shape the path", () => {
    for (const statementDate of ["../../etc/passwd", "2025-01-01/../../x", "..", "/abs", "C:\\x", "2025-01-0\u0000", undefined]) {
      const name = statementFileName({ statementId: "../../a/b\\c", statementDate }, scope)!;
      expect(name).toMatch(/^(undated|\d{4}-\d{2}-\d{2})_[0-9a-f]{16}\.pdf$/);
    }
    expect(statementFileName({ statementDate: "2025-01-31" }, scope)).toBeUndefined();
    expect(statementFileName({ links: [{ href: "/products/x" }] }, scope)).toMatch(/^undated_/);
  });
});

describe("configuration", () => {
  const env = { FDXKIT_BASE_URL: "https://env.example.com", FDXKIT_TOKEN: "env-token" };

  it("flags win over the environment", () => {
    expect(resolveConfig({}, env)).toMatchObject({ baseUrl: "https://env.example.com", auth: { kind: "token", token: "env-token" } });
    expect(resolveConfig({ baseUrl: "https://flag.example.com", token: "flag-token" }, env)).toMatchObject({
      baseUrl: "https://flag.example.com",
      auth: { kind: "token", token: "flag-token" },
    });
    const cc = { tokenUrl: "https://auth.example.com/token", clientId: "id", clientSecret: "secret" };
    expect(resolveConfig(cc, env).auth).toEqual({ kind: "client-credentials", ...cc, scope: undefined });
  });

  it("client credentials merge flags and environment; conflicts and gaps are usage errors", () => {
    const ccEnv = { FDXKIT_BASE_URL: "https://e", FDXKIT_TOKEN_URL: "https://auth/t", FDXKIT_CLIENT_ID: "id", FDXKIT_CLIENT_SECRET: "s", FDXKIT_SCOPE: "a b" };
    expect(resolveConfig({ clientSecret: "flag-secret" }, ccEnv).auth).toMatchObject({ clientSecret: "flag-secret", scope: "a b" });
    expect(() => resolveConfig({ token: "t", clientId: "id" }, ccEnv)).toThrow(UsageError);
    expect(() => resolveConfig({}, { ...ccEnv, FDXKIT_TOKEN: "t" })).toThrow(UsageError);
    expect(() => resolveConfig({}, { FDXKIT_BASE_URL: "https://e", FDXKIT_CLIENT_ID: "id" })).toThrow(/--token-url/);
    expect(() => resolveConfig({ token: "t" }, {})).toThrow(/FDXKIT_BASE_URL/);
    expect(() => resolveConfig({ maxRetries: "-1" }, env)).toThrow(UsageError);
  });

  it("finds secrets in argv and env before parsing", () => {
    expect(secretsFrom(["--token", "a1", "--client-secret=b2", "x"], { FDXKIT_TOKEN: "c3", FDXKIT_CLIENT_SECRET: "d4" }).sort()).toEqual([
      "a1",
      "b2",
      "c3",
      "d4",
    ]);
  });
});

describe("output", () => {
  it("masks secrets in everything it writes, longest first", () => {
    let out = "";
    const output = new Output({ json: false, stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (out += t) } });
    output.addSecrets("secret-token", "secret-token-long");
    output.data({}, () => "a secret-token-long b secret-token");
    output.info("secret-token");
    output.error(new Error("leaked secret-token"));
    expect(out).not.toContain("secret-token");
    expect(out).toContain("a *** b ***");
  });
});

describe("dates", () => {
  it("a date-only --from/--to covers whole UTC days; date-times are UTC unless they name an offset", () => {
    expect(parseFlagDate("--from", "2025-06-01").toISOString()).toBe("2025-06-01T00:00:00.000Z");
    expect(parseFlagDate("--to", "2025-06-30").toISOString()).toBe("2025-06-30T23:59:59.999Z");
    expect(parseFlagDate("--to", "2025-06-30T12:00:00Z").toISOString()).toBe("2025-06-30T12:00:00.000Z");
    expect(parseFlagDate("--to", "2025-06-30T12:00").toISOString()).toBe("2025-06-30T12:00:00.000Z");
    expect(parseFlagDate("--from", "2025-06-30T12:00:00+02:00").toISOString()).toBe("2025-06-30T10:00:00.000Z");
  });

  it("a bad date is a usage error naming the flag, never the SDK's field", () => {
    for (const [flag, value] of [
      ["--to", "2025-02-30"],
      ["--from", "yesterday"],
      ["--from", "2025-13-01T00:00:00Z"],
      ["--to", ""],
    ] as const) {
      expect(() => parseFlagDate(flag, value)).toThrow(UsageError);
      expect(() => parseFlagDate(flag, value)).toThrow(new RegExp(`^${flag}: must be a date \\(YYYY-MM-DD\\) or an ISO 8601 date-time`));
    }
    expect(() => flagRange("2025-07-01", "2025-06-30")).toThrow(/^--from: must not be after --to/);
    expect(flagRange(undefined, undefined)).toEqual({ start: undefined, end: undefined });
  });
});

describe("validation errors in the CLI's terms", () => {
  it("name the flags, not the SDK's fields, also inside messages", () => {
    const text = formatError(
      new FdxValidationError([
        { path: "startTime", message: "must not be after endTime" },
        { path: "accountId", message: 'must not be "." or ".."' },
        { path: "", message: "must set at least one of callbackUrl, effectiveDate, callbackEmail" },
        { path: "subscriptionId", message: "must be at most 256 characters" },
      ]),
    );
    expect(text).toBe(
      [
        "error: invalid input",
        "  --from: must not be after --to",
        '  --account: must not be "." or ".."',
        "  must set at least one of --callback-url, --effective-date, --callback-email",
        "  <id>: must be at most 256 characters",
      ].join("\n"),
    );
    expect(text).not.toMatch(/startTime|endTime|accountId|callbackUrl|\(input\)/);
  });
});

describe("exit codes", () => {
  it("maps errors to the documented codes", () => {
    expect(exitCodeFor(new FdxValidationError([]))).toBe(ExitCode.Usage);
    expect(exitCodeFor(new UsageError("x"))).toBe(ExitCode.Usage);
    expect(exitCodeFor(new FdxUnauthorizedError(apiInit(401)))).toBe(ExitCode.Auth);
    expect(exitCodeFor(new FdxNotFoundError(apiInit(404)))).toBe(ExitCode.NotFound);
    expect(exitCodeFor(new FdxRateLimitError(apiInit(429)))).toBe(ExitCode.Unavailable);
    expect(exitCodeFor(new FdxConnectionError("x"))).toBe(ExitCode.Network);
    expect(exitCodeFor(new FdxTimeoutError("x"))).toBe(ExitCode.Network);
    expect(exitCodeFor(new FdxAbortError())).toBe(ExitCode.Interrupted);
    expect(exitCodeFor(new Error("x"))).toBe(ExitCode.Failure);
    // The token endpoint refusing the credentials (here with a 400) is an authentication failure.
    expect(exitCodeFor(new FdxNotFoundError({ ...apiInit(400), url: "https://auth.example.com/token" }), "https://auth.example.com/token")).toBe(ExitCode.Auth);
  });
});
