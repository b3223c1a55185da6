import { FdxAbortError, FdxConnectionError, FdxNotFoundError, FdxRateLimitError, FdxTimeoutError, FdxUnauthorizedError, FdxValidationError } from "@fdxkit/client";
import { describe, expect, it } from "vitest";
import { resolveConfig, secretsFrom } from "../src/config.js";
import { rangeEnd, rangeStart } from "../src/dates.js";
import { ExitCode, exitCodeFor, UsageError } from "../src/errors.js";
import { abortableBody, raceAbort } from "../src/export/abortable.js";
import { statementFileName } from "../src/export/filename.js";
import { runPool } from "../src/export/pool.js";
import { Output } from "../src/output.js";

const scope = { providerId: "sandbox-bank", accountId: "ACC-1001" };
const apiInit = (status: number) => ({ status, code: undefined, message: "m", debugMessage: undefined, body: undefined, headers: {}, method: "GET", url: "https://api.example.com/x" });

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
    expect(secretsFrom(["--token", "a1", "--client-secret=b2", "x"], { FDXKIT_TOKEN: "c3", FDXKIT_CLIENT_SECRET: "d4" }).sort()).toEqual(["a1", "b2", "c3", "d4"]);
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
  it("a date-only --from/--to covers whole UTC days; invalid dates are usage errors", () => {
    expect(rangeStart("2025-06-01")).toBe("2025-06-01T00:00:00.000Z");
    expect(rangeEnd("2025-06-30")).toBe("2025-06-30T23:59:59.999Z");
    expect(rangeEnd("2025-06-30T12:00:00Z")).toBe("2025-06-30T12:00:00Z");
    expect(() => rangeEnd("2025-02-30")).toThrow(UsageError);
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

describe("export building blocks", () => {
  it("runPool never runs more than `concurrency` at once and processes every item once", async () => {
    let running = 0;
    let max = 0;
    const seen: number[] = [];
    async function* items() {
      for (let i = 0; i < 20; i++) yield i;
    }
    await runPool(items(), 3, async (i) => {
      running++;
      max = Math.max(max, running);
      await new Promise((r) => setImmediate(r));
      seen.push(i);
      running--;
    }, () => false);
    expect(max).toBe(3);
    expect(seen.sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
  });

  it("runPool reports a source error after the work in flight", async () => {
    async function* items() {
      yield 1;
      throw new Error("page failed");
    }
    const done: number[] = [];
    const { sourceError } = await runPool(items(), 2, async (i) => void done.push(i), () => false);
    expect(done).toEqual([1]);
    expect((sourceError as Error).message).toBe("page failed");
  });

  it("abortableBody errors a pending read on abort and cancels the source", async () => {
    let cancelled = false;
    const source = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}), cancel: () => void (cancelled = true) });
    const controller = new AbortController();
    const reader = abortableBody(source, controller.signal).getReader();
    const read = reader.read();
    controller.abort();
    await expect(read).rejects.toBeInstanceOf(FdxAbortError);
    expect(cancelled).toBe(true);
  });

  it("raceAbort rejects at once on abort and hands a late value to discard", async () => {
    let resolveLate!: (v: string) => void;
    const late = new Promise<string>((r) => (resolveLate = r));
    const controller = new AbortController();
    const discarded: string[] = [];
    const raced = raceAbort(late, controller.signal, (v) => discarded.push(v));
    controller.abort();
    await expect(raced).rejects.toBeInstanceOf(FdxAbortError);
    resolveLate("body");
    await late;
    await new Promise((r) => setImmediate(r));
    expect(discarded).toEqual(["body"]);
  });
});
