// `fdxkit connect`, `fdxkit connections …` and `statements export --connections`
// against the sandbox's IdP, run as users run the CLI (the built bin), with
// the embedded store in a temporary directory.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startMockServer, type MockServer } from "@fdxkit/mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, leaks, runCli, startCli, type CliResult } from "./helpers.js";

let mock: MockServer;
let dir: string;
const KEY = Buffer.alloc(32, 7).toString("base64");

beforeAll(async () => {
  assertBuilt();
  mock = await startMockServer({ port: 0, requireUserTokens: true });
  dir = mkdtempSync(path.join(tmpdir(), "fdxkit-cli-connections-"));
});
afterAll(async () => {
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
  // Several embedded databases to remove: seconds on a busy machine.
}, 60_000);

/** The environment of one scenario: the sandbox, its IdP client, a store of its own (encrypted when `key`). */
function envFor(store: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    FDXKIT_BASE_URL: mock.baseUrl,
    FDXKIT_PRODUCTS_URL: mock.productsUrl,
    FDXKIT_ISSUER: mock.idpUrl,
    FDXKIT_CLIENT_ID: mock.clientId,
    FDXKIT_CLIENT_SECRET: mock.clientSecret,
    FDXKIT_STORE: store,
    ...extra,
  };
}

/** Runs `fdxkit connect`, and plays the user's browser: the IdP's pages (mock.authorize), then the redirect. */
async function connect(env: Record<string, string>, args: string[] = [], browse: (url: string) => Promise<string> = (url) => mock.authorize(url)) {
  const cli = startCli(["connect", "--connector", mock.seed.providerId, ...args], env);
  await cli.waitFor(({ stderr }) => /http:\/\/127\.0\.0\.1:\d+\/auth\?\S+/.test(stderr), "the authorization URL");
  const url = /(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)/.exec(cli.stderr())![1]!;
  const callback = await browse(url);
  const page = await fetch(callback);
  return { cli, url, callback, page: { status: page.status, headers: page.headers, text: await page.text() }, result: await cli.done };
}

function secretsIn(result: CliResult, secrets: string[]): string[] {
  return secrets.filter((s) => leaks(result.stdout + result.stderr, s));
}

describe("connect → export → revoked at the bank → export → revoke", () => {
  const store = () => path.join(dir, "main-store");

  it("connect stores the connection under <connector>:<subject>; its page shows no code and is not cached", async () => {
    const { result, page, callback } = await connect(envFor(store(), { FDXKIT_ENCRYPTION_KEY: KEY }));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Connected: sandbox-bank:user_good \(3 account\(s\): ACC-1001, ACC-1002, ACC-1003\), stored in /);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const code = new URL(callback).searchParams.get("code")!;
    expect(page.text).not.toContain(code);
    expect(secretsIn(result, [code, mock.clientSecret])).toEqual([]);
  });

  it("connections list --json prints the fields, never a token", async () => {
    const result = await runCli(["connections", "list", "--json"], envFor(store(), { FDXKIT_ENCRYPTION_KEY: KEY }));
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(rows).toEqual([
      {
        id: "sandbox-bank:user_good",
        status: "active",
        connector: "sandbox-bank",
        accounts: ["ACC-1001", "ACC-1002", "ACC-1003"],
        consentId: expect.any(String),
        expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    expect(result.stdout).not.toMatch(/eyJ|refresh/i);
  });

  it("without the encryption key the stored tokens do not open: a typed error, nothing printed of them", async () => {
    const config = path.join(dir, "config-without-key");
    const result = await runCli(["connections", "refresh", "sandbox-bank:user_good"], envFor(store(), { XDG_CONFIG_HOME: config }));
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(/fdxenc|eyJ/);
    // The key file made for this run is not the key the rows were sealed with.
    const keyFile = path.join(config, "fdxkit", "key");
    expect(result.stderr).toBe(
      `fdxkit: made an encryption key for the stored tokens in ${keyFile} (keep it: without it they cannot be used; FDXKIT_ENCRYPTION_KEY overrides it)\n` +
        `error: the stored connections do not decrypt with the key file ${keyFile}: set FDXKIT_ENCRYPTION_KEY to the key they were written with (The idToken of connection "sandbox-bank:user_good" does not decrypt: a wrong key, or the value or its row was changed (a column edited, or an older value written back))\n`,
    );
    const plain = await runCli(["connections", "refresh", "sandbox-bank:user_good", "--plaintext-store"], envFor(store()));
    expect(plain).toMatchObject({
      code: 2,
      stderr: "error: the stored connections are encrypted: set FDXKIT_ENCRYPTION_KEY to the key they were written with\n",
    });
  });

  it("statements export --connections saves each account's statements with the user's own token", async () => {
    const out = path.join(dir, "export-1");
    const result = await runCli(["statements", "export", "--connections", "--out", out, "--no-progress"], envFor(store(), { FDXKIT_ENCRYPTION_KEY: KEY }));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^sandbox-bank:user_good: finished — sandbox-bank, 3 account\(s\): \d+ downloaded, 0 already present, 0 failed -> /);
    const downloaded = Number(/(\d+) downloaded/.exec(result.stdout)![1]);
    expect(downloaded).toBeGreaterThan(10);
    const manifest = readFileSync(path.join(out, "manifest.jsonl"), "utf8").trim().split("\n");
    expect(manifest).toHaveLength(downloaded);
    expect(readdirSync(out).filter((f) => f.startsWith("ACC-")).length).toBe(3);
  });

  it("after the user revokes at the bank, the export reports the connection and skips it (exit 0)", async () => {
    const list = JSON.parse((await runCli(["connections", "list", "--json"], envFor(store(), { FDXKIT_ENCRYPTION_KEY: KEY }))).stdout) as {
      consentId: string;
    }[];
    await mock.revokeConsent(list[0]!.consentId);
    const before = mock.authStats();
    const out = path.join(dir, "export-2");
    const result = await runCli(["statements", "export", "--connections", "--out", out, "--no-progress"], envFor(store(), { FDXKIT_ENCRYPTION_KEY: KEY }));
    expect(result.stdout).toBe("sandbox-bank:user_good: skipped (needs the user's approval again: fdxkit connect)\n");
    expect(result.stderr).toContain("sandbox-bank:user_good: needs the user's approval again (fdxkit connect), skipped.");
    expect(result.code).toBe(0);
    // One refresh tried after the 602, refused; nothing else spent.
    expect(mock.authStats().refreshesRejected).toBe(before.refreshesRejected + 1);
    const after = JSON.parse((await runCli(["connections", "list", "--json"], envFor(store(), { FDXKIT_ENCRYPTION_KEY: KEY }))).stdout) as { status: string }[];
    expect(after[0]!.status).toBe("reauthorization_required");
  });

  it("connections revoke ends it; revoking an unknown id is a usage error", async () => {
    const env = envFor(store(), { FDXKIT_ENCRYPTION_KEY: KEY });
    expect((await runCli(["connections", "revoke", "sandbox-bank:user_good"], env)).stdout).toBe("Revoked: sandbox-bank:user_good\n");
    const unknown = await runCli(["connections", "revoke", "nobody"], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('error: no connection "nobody" in the store\n');
  });
});

describe("connect, refused or abandoned", () => {
  it("the user denies: a clear error, exit non-zero, nothing stored", async () => {
    const store = path.join(dir, "denied");
    const { result, page } = await connect(envFor(store), [], (url) => mock.authorize(url, { deny: true }));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/error: .*access_denied|error: .*denied/i);
    expect(page.text).toContain("You did not approve access");
    expect(JSON.parse((await runCli(["connections", "list", "--json"], envFor(store))).stdout)).toEqual([]);
  });

  it("a callback with another state gets 400 and the wait goes on; a wrong Host or path gets nothing", async () => {
    const store = path.join(dir, "stray");
    let strays: number[] = [];
    const { result } = await connect(envFor(store), ["--id", "mine"], async (url) => {
      const redirect = new URL(new URL(url).searchParams.get("redirect_uri")!);
      const forged = new URL(redirect);
      forged.searchParams.set("state", "forged");
      forged.searchParams.set("code", "x");
      const other = new URL(redirect);
      other.pathname = "/elsewhere";
      strays = [(await fetch(forged)).status, (await fetch(redirect)).status, (await fetch(other)).status];
      strays.push((await fetch(redirect.href.replace("127.0.0.1", "localhost"))).status);
      return mock.authorize(url);
    });
    expect(strays).toEqual([400, 400, 404, 400]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Connected: mine /);
  });

  it("no approval within --timeout: a usage error naming the flag", async () => {
    const cli = startCli(["connect", "--connector", "sandbox-bank", "--timeout", "300"], envFor(path.join(dir, "late")));
    const result = await cli.done;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: connect: no approval came back within 0 s (--timeout)");
  });
});

describe("configuration errors", () => {
  it("a store that is neither a postgres:// URL nor a directory", async () => {
    const file = path.join(dir, "a-file");
    writeFileSync(file, "x");
    const ftp = await runCli(["connections", "list", "--store", "ftp://example.com/x"], envFor(""));
    expect(ftp).toMatchObject({ code: 2, stderr: "error: --store: expected a postgres:// URL or a directory, not a ftp: URL\n" });
    const notDir = await runCli(["connections", "list", "--store", file], envFor(""));
    expect(notDir).toMatchObject({ code: 2, stderr: `error: --store: ${file} is a file, not a directory\n` });
  });

  it("a postgres:// store that is down: an error without the password", async () => {
    const result = await runCli(["connections", "list", "--store", "postgres://fdx:pw-Secret-123@127.0.0.1:1/db"], envFor(""));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/^error: /);
    expect(result.stderr + result.stdout).not.toContain("pw-Secret-123");
  });

  it("a bad encryption key is refused before anything is read", async () => {
    const result = await runCli(["connections", "list"], envFor(path.join(dir, "badkey"), { FDXKIT_ENCRYPTION_KEY: "k1:c2hvcnQ=" }));
    expect(result).toMatchObject({
      code: 2,
      stderr: "error: FDXKIT_ENCRYPTION_KEY: each key must be the base64 of exactly 32 bytes (e.g. `openssl rand -base64 32`)\n",
    });
  });

  it("the IdP client incomplete: names what is missing", async () => {
    const result = await runCli(["connections", "list"], { FDXKIT_STORE: path.join(dir, "none") });
    expect(result).toMatchObject({
      code: 2,
      stderr:
        "error: the identity provider's client is not configured: missing --issuer (FDXKIT_ISSUER), --client-id (FDXKIT_CLIENT_ID), --client-secret-file (FDXKIT_CLIENT_SECRET)\n",
    });
  });

  it("--client-secret-file reads the secret from a file (and never prints it)", async () => {
    const secretFile = path.join(dir, "secret.txt");
    writeFileSync(secretFile, `${mock.clientSecret}\n`);
    const { FDXKIT_CLIENT_SECRET: _, ...env } = envFor(path.join(dir, "secret-file-store"));
    const { result } = await connect(env, ["--client-secret-file", secretFile]);
    expect(result.code).toBe(0);
    expect(secretsIn(result, [mock.clientSecret])).toEqual([]);
  });

  it("--connections with --provider or --account is a usage error; without --connections, --provider is required", async () => {
    const both = await runCli(["statements", "export", "--connections", "--provider", "p", "--out", dir], envFor(path.join(dir, "x")));
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--connections: the provider and accounts come from each connection");
    const neither = await runCli(["statements", "export", "--out", dir], envFor(path.join(dir, "x")));
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain("required option '--provider <id>' not specified");
  });
});
