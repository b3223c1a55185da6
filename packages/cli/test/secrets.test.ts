import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMockServer, type MockServer } from "@fdxkit/mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, leaks, readBody, runCli, startProxy, startServer, type CliResult, type TestServer } from "./helpers.js";

// Long, distinctive values, so a leak in any output is found.
const ACCESS_TOKEN = "at-7f3c9e1b2d4a6f8e0c1b3d5f7a9e2c4b";
const CLIENT_ID = "ops-cli-client";
const CLIENT_SECRET = "cs-S3cr3t!with spaces&symbols=42";

let mock: MockServer;
let tokenServer: TestServer;
const tokenRequests: { authorization: string | undefined; body: string }[] = [];

beforeAll(async () => {
  assertBuilt();
  mock = await startMockServer({ port: 0, token: ACCESS_TOKEN });
  // A minimal OAuth 2.0 token endpoint: Basic client authentication, client-credentials grant.
  const expected = `Basic ${Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${new URLSearchParams([["", CLIENT_SECRET]]).toString().slice(1)}`).toString("base64")}`;
  tokenServer = await startServer((req, res) => {
    void readBody(req).then((body) => {
      tokenRequests.push({ authorization: req.headers.authorization, body });
      res.setHeader("content-type", "application/json");
      if (req.headers.authorization !== expected) {
        res.statusCode = 401;
        res.end(JSON.stringify({ error: "invalid_client", error_description: "Client authentication failed" }));
        return;
      }
      res.end(JSON.stringify({ access_token: ACCESS_TOKEN, token_type: "Bearer", expires_in: 3600 }));
    });
  });
});
afterAll(async () => {
  await mock.close();
  await tokenServer.close();
});

function expectNoSecret(result: CliResult, ...secrets: string[]): void {
  for (const secret of secrets) {
    expect(leaks(result.stdout, secret), `stdout leaks ${secret}`).toBe(false);
    expect(leaks(result.stderr, secret), `stderr leaks ${secret}`).toBe(false);
  }
}

const base = () => ["--base-url", mock.baseUrl, "--products-url", mock.productsUrl];
const consentId = "consent-active-1";

describe("a bearer token", () => {
  it("is never printed, with --verbose, on success and on failure", async () => {
    const ok = await runCli(["consents", "get", consentId, ...base(), "--token", ACCESS_TOKEN, "--verbose"]);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toMatch(new RegExp(`^> GET ${mock.baseUrl}/consents/v1/${consentId} -> 200 \\(\\d+ ms, attempt 1, id [0-9a-f-]{36}\\)$`, "m"));
    expectNoSecret(ok, ACCESS_TOKEN);

    const json = await runCli([
      "statements",
      "list",
      "--provider",
      "sandbox-bank",
      "--account",
      "ACC-1001",
      ...base(),
      "--token",
      ACCESS_TOKEN,
      "--verbose",
      "--json",
    ]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toHaveLength(24);
    expectNoSecret(json, ACCESS_TOKEN);

    const notFound = await runCli(["consents", "get", "nope", ...base(), "--token", ACCESS_TOKEN, "--verbose"]);
    expect(notFound.code).toBe(4);
    expectNoSecret(notFound, ACCESS_TOKEN);

    const wrong = `${ACCESS_TOKEN}-but-wrong`;
    const unauthorized = await runCli(["consents", "get", consentId, ...base(), "--token", wrong, "--verbose", "--json"]);
    expect(unauthorized.code).toBe(3);
    expectNoSecret(unauthorized, wrong, ACCESS_TOKEN);
  });

  it("--verbose prints each attempt and each retry through the client's hooks", async () => {
    let n = 0;
    const flaky = await startServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      if (++n === 1) {
        res.statusCode = 503;
        res.setHeader("retry-after", "0");
        return res.end(JSON.stringify({ code: "503", message: "Scheduled Maintenance" }));
      }
      res.end(JSON.stringify({ id: consentId, status: "ACTIVE" }));
    });
    try {
      const result = await runCli(["consents", "get", consentId, "--base-url", flaky.url, "--token", ACCESS_TOKEN, "--verbose"]);
      expect(result.code).toBe(0);
      const lines = result.stderr.split("\n").filter((line) => line.startsWith("> "));
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(new RegExp(`^> GET ${flaky.url}/consents/v1/${consentId} -> 503 \\(\\d+ ms, attempt 1, id ([0-9a-f-]{36})\\)$`));
      expect(lines[1]).toBe(`> GET ${flaky.url}/consents/v1/${consentId}: attempt 1 failed (FdxMaintenanceError), retrying in 0 ms`);
      expect(lines[2]).toMatch(/-> 200 \(\d+ ms, attempt 2, id [0-9a-f-]{36}\)$/);
      expectNoSecret(result, ACCESS_TOKEN);
    } finally {
      await flaky.close();
    }
  });

  it("is masked even where a server echoes it back in an error body", async () => {
    const echo = await startServer((req, res) => {
      res.statusCode = 404;
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          code: "NotFound",
          message: `no such thing (you sent ${req.headers.authorization})`,
          debugMessage: `auth=${req.headers.authorization}`,
        }),
      );
    });
    try {
      for (const extra of [[], ["--json"]]) {
        const result = await runCli(["consents", "get", "c", "--base-url", echo.url, "--token", ACCESS_TOKEN, ...extra]);
        expect(result.code).toBe(4);
        expect(result.stderr).toContain("no such thing");
        expectNoSecret(result, ACCESS_TOKEN);
      }
    } finally {
      await echo.close();
    }
  });

  it("is never echoed by a usage error", async () => {
    const result = await runCli(["consents", "get", "c", "--base-url", mock.baseUrl, `--token=${ACCESS_TOKEN}`, "--bogus-flag"]);
    expect(result.code).toBe(2);
    expectNoSecret(result, ACCESS_TOKEN);
  });

  it("comes from FDXKIT_TOKEN, and a flag wins over the environment", async () => {
    const env = { FDXKIT_BASE_URL: mock.baseUrl, FDXKIT_PRODUCTS_URL: mock.productsUrl, FDXKIT_TOKEN: ACCESS_TOKEN };
    const fromEnv = await runCli(["consents", "get", consentId, "--json", "--verbose"], env);
    expect(fromEnv.code).toBe(0);
    expect(JSON.parse(fromEnv.stdout).id).toBe(consentId);
    expectNoSecret(fromEnv, ACCESS_TOKEN);

    const flagWins = await runCli(["consents", "get", consentId, "--token", "wrong-token-from-flag"], env);
    expect(flagWins.code).toBe(3);
    expectNoSecret(flagWins, ACCESS_TOKEN, "wrong-token-from-flag");

    const baseFlagWins = await runCli(["consents", "get", consentId, "--base-url", "http://127.0.0.1:1"], env);
    expect(baseFlagWins.code).toBe(6);
  });
});

describe("client credentials", () => {
  const ccFlags = () => [
    "--token-url",
    `${tokenServer.url}/oauth/token`,
    "--client-id",
    CLIENT_ID,
    "--client-secret",
    CLIENT_SECRET,
    "--scope",
    "consents statements",
  ];

  it("obtains a token and never prints the secret or the access token, with --verbose", async () => {
    tokenRequests.length = 0;
    const result = await runCli(["consents", "get", consentId, ...base(), ...ccFlags(), "--verbose"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^status\s+ACTIVE$/m);
    expect(result.stderr).toContain(`> POST ${tokenServer.url}/oauth/token -> 200`);
    expect(result.stderr).toContain(`> GET ${mock.baseUrl}/consents/v1/${consentId} -> 200`);
    expectNoSecret(result, CLIENT_SECRET, ACCESS_TOKEN);
    expect(tokenRequests).toHaveLength(1);
    expect(new URLSearchParams(tokenRequests[0]!.body).get("scope")).toBe("consents statements");
  });

  it("from the environment too, with --json", async () => {
    const env = {
      FDXKIT_BASE_URL: mock.baseUrl,
      FDXKIT_PRODUCTS_URL: mock.productsUrl,
      FDXKIT_TOKEN_URL: `${tokenServer.url}/oauth/token`,
      FDXKIT_CLIENT_ID: CLIENT_ID,
      FDXKIT_CLIENT_SECRET: CLIENT_SECRET,
    };
    const result = await runCli(["statements", "list", "--provider", "sandbox-bank", "--account", "ACC-1002", "--limit", "3", "--json", "--verbose"], env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(3);
    expectNoSecret(result, CLIENT_SECRET, ACCESS_TOKEN);
  });

  it("a refused client secret is an authentication failure (exit 3), and the secret is not printed", async () => {
    const wrongSecret = "cs-wrong-secret-value-123";
    for (const extra of [["--verbose"], ["--verbose", "--json"]]) {
      const result = await runCli([
        "consents",
        "get",
        consentId,
        ...base(),
        "--token-url",
        `${tokenServer.url}/oauth/token`,
        "--client-id",
        CLIENT_ID,
        "--client-secret",
        wrongSecret,
        ...extra,
      ]);
      expect(result.code).toBe(3);
      expect(result.stderr).toContain("Client authentication failed");
      expectNoSecret(result, wrongSecret, CLIENT_SECRET);
    }
  });

  it("incomplete or conflicting credentials are usage errors (exit 2), without echoing the secret", async () => {
    const incomplete = await runCli(["consents", "get", consentId, ...base(), "--client-id", CLIENT_ID, "--client-secret", CLIENT_SECRET]);
    expect(incomplete.code).toBe(2);
    expect(incomplete.stderr).toContain("--token-url");
    expectNoSecret(incomplete, CLIENT_SECRET);

    const both = await runCli(["consents", "get", consentId, ...base(), ...ccFlags(), "--token", ACCESS_TOKEN]);
    expect(both.code).toBe(2);
    expectNoSecret(both, CLIENT_SECRET, ACCESS_TOKEN);

    const none = await runCli(["consents", "get", consentId, ...base()]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no credentials");
  });

  it("flags win over a token in the environment", async () => {
    const result = await runCli(["consents", "get", consentId, ...base(), ...ccFlags(), "--json"], { FDXKIT_TOKEN: "env-token-that-is-wrong" });
    expect(result.code).toBe(0);
    expectNoSecret(result, CLIENT_SECRET, ACCESS_TOKEN, "env-token-that-is-wrong");
  });
});

describe("statements export", () => {
  it("writes no token or secret into any output, file name, file or the manifest, even where the server echoes the token", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fdxkit-cli-secrets-"));
    // Echoes the bearer token it receives into statement ids and descriptions, and into an error body.
    const proxy = await startProxy(mock.baseUrl, {
      intercept(req, res) {
        if (/%7C2025-0[1-2]%2F/.test(req.url ?? "")) {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ code: "500", message: `storage refused ${req.headers.authorization}`, debugMessage: `token=${req.headers.authorization}` }));
          return true;
        }
        return false;
      },
      transformJson(body, req) {
        const page = body as { statements?: Record<string, unknown>[] };
        page.statements?.forEach((s, i) => {
          s.description = `for ${req.headers.authorization}`;
          if (i % 2 === 0) s.statementId = `${String(s.statementId)}:${req.headers.authorization}`;
        });
        return page;
      },
    });
    try {
      const args = [
        "statements",
        "export",
        "--provider",
        "sandbox-bank",
        "--account",
        "ACC-1001",
        "--account",
        "ACC-1002",
        "--from",
        "2024-12-01",
        "--to",
        "2025-06-30",
        "--out",
        dir,
        "--base-url",
        proxy.url,
        "--products-url",
        `${proxy.url}/products`,
        "--max-retries",
        "0",
        "--token-url",
        `${tokenServer.url}/oauth/token`,
        "--client-id",
        CLIENT_ID,
        "--client-secret",
        CLIENT_SECRET,
        "--verbose",
      ];
      for (const extra of [[], ["--json"]]) {
        const result = await runCli([...args, ...extra]);
        expect(result.code).toBe(1);
        expect(result.stderr).toContain("storage refused Bearer [redacted]");
        expectNoSecret(result, CLIENT_SECRET, ACCESS_TOKEN);
      }
      const files = (await readdir(dir, { recursive: true })).map(String);
      expect(files).toContain("manifest.jsonl");
      const manifest = await readFile(join(dir, "manifest.jsonl"), "utf8");
      expect(manifest).toContain(":Bearer ***");
      for (const name of files) {
        expect(leaks(name, ACCESS_TOKEN) || leaks(name, CLIENT_SECRET), name).toBe(false);
        const path = join(dir, name);
        if (!name.endsWith(".pdf") && !name.endsWith(".jsonl")) continue;
        const text = (await readFile(path)).toString("latin1");
        expect(leaks(text, ACCESS_TOKEN) || leaks(text, CLIENT_SECRET), name).toBe(false);
      }
    } finally {
      await proxy.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
