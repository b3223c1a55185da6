// A command that opens the embedded store runs in a child Node started with
// --liftoff-only (PGlite's start-up otherwise waits at exit for Node's optimizing
// compiler). The child must be invisible: same output, exit code and signals.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startMockServer, type MockServer } from "@fdxkit/mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIFTOFF_FLAG, wantsLiftoff } from "../src/relaunch.js";
import { assertBuilt, runCli, startCli } from "./helpers.js";

describe("wantsLiftoff: which commands open the embedded store", () => {
  const none = {};
  it.each([
    [["connections", "list"], none],
    [["connect", "--connector", "bank"], none],
    [["--store", "/data/fdxkit", "connections", "refresh", "x"], none],
    [["connections", "list", "--store=./here"], { FDXKIT_STORE: "postgres://db/x" }],
    [["statements", "export", "--connections", "--from", "2024-01-01"], none],
    [["statements", "export", "--provider", "p", "--rate-limit", "5", "--rate-budget", "./budget"], none],
    [["statements", "export", "--provider", "p", "--rate-limit", "5", "--rate-budget=./budget", "--store", "postgres://db/x"], none],
  ])("%j with %j: yes", (argv, env) => {
    expect(wantsLiftoff(argv, env, [])).toBe(true);
  });

  it.each([
    [["statements", "list", "--provider", "p", "--account", "a"], none],
    [["connections", "list", "--store", "postgres://u@db/x"], none],
    [["connections", "list", "--store=POSTGRESQL://db/x"], none],
    [["connections", "list"], { FDXKIT_STORE: " postgres://db/x" }],
    [["statements", "export", "--connections", "--store", "postgres://db/x"], none],
    [["statements", "export", "--provider", "p", "--rate-limit", "5", "--rate-budget", "memory"], none],
    [["statements", "export", "--provider", "p", "--rate-limit", "5", "--rate-budget", "postgres://db/x"], none],
    [["connections", "--help"], none],
    [["connect", "-h"], none],
    [["listen", "--port", "0"], none],
  ])("%j with %j: no", (argv, env) => {
    expect(wantsLiftoff(argv, env, [])).toBe(false);
  });

  it("never in a process that already has the flag (no endless relaunch)", () => {
    expect(wantsLiftoff(["connections", "list"], {}, [LIFTOFF_FLAG])).toBe(false);
    expect(wantsLiftoff(["connections", "list"], {}, ["--import", "x", LIFTOFF_FLAG])).toBe(false);
  });
});

describe("the relaunched command, run as users run it", () => {
  let mock: MockServer;
  let dir: string;
  // Printed by every process that starts: the parent without the flag, then the child with it.
  const whoAmI = `data:text/javascript,${encodeURIComponent(`console.error("node flags:", process.execArgv.includes(${JSON.stringify(LIFTOFF_FLAG)}) ? "liftoff" : "default")`)}`;

  beforeAll(async () => {
    assertBuilt();
    mock = await startMockServer({ port: 0 });
    dir = mkdtempSync(path.join(tmpdir(), "fdxkit-cli-relaunch-"));
  });
  afterAll(async () => {
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const env = (extra: Record<string, string> = {}) => ({
    FDXKIT_ISSUER: mock.idpUrl,
    FDXKIT_CLIENT_ID: mock.clientId,
    FDXKIT_CLIENT_SECRET: mock.clientSecret,
    FDXKIT_STORE: path.join(dir, "store"),
    ...extra,
  });

  it("connections list on the embedded store runs in a child with the flag, keeping the given Node flags, and prints what it would print", async () => {
    const result = await runCli(["connections", "list"], env(), ["--import", whoAmI]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("No connections.\n");
    // The parent, then the child: the --import given to the parent reached the child too.
    expect(result.stderr.match(/node flags: \w+/g)).toEqual(["node flags: default", "node flags: liftoff"]);
  });

  it("a command without the embedded store runs in the one process", async () => {
    const result = await runCli(["maintenance", "get", "x", "--base-url", mock.baseUrl, "--token", "t"], env(), ["--import", whoAmI]);
    expect(result.stderr.match(/node flags: \w+/g)).toEqual(["node flags: default"]);
  });

  it("the child's exit code is the command's: a usage error is 2, with its message once", async () => {
    const result = await runCli(["connections", "revoke", "nobody"], env());
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: no connection "nobody" in the store\n');
  });

  it.each(["SIGTERM", "SIGINT"] as const)("%s sent to fdxkit (no terminal) stops the command in the child, and fdxkit ends by it", async (signal) => {
    const cli = startCli(["connect", "--connector", mock.seed.providerId], env(), ["--import", whoAmI]);
    await cli.waitFor(({ stderr }) => /http:\/\/127\.0\.0\.1:\d+\/auth\?\S+/.test(stderr), "the authorization URL");
    const url = new URL(/(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(cli.stderr())![1]!);
    const callback = url.searchParams.get("redirect_uri")!;
    expect((await fetch(callback)).status).toBe(400);
    cli.child.kill(signal);
    const result = await cli.done;
    expect(result.signal).toBe(signal);
    // The child is gone with it: nothing listens for the callback any more.
    await expect(fetch(callback)).rejects.toThrow();
    expect(result.stderr.match(/node flags: \w+/g)).toEqual(["node flags: default", "node flags: liftoff"]);
  });
});
