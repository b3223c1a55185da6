import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createWebhookServer, getPeerCertificate } from "@fdxkit/client/node";
import { createWebhookHandler, type Notification } from "@fdxkit/client/webhooks";
import { expect, it } from "vitest";
import { makeCertificates } from "../../client/test/support/certificates.js";

// The project's test command builds first; the CLI is tested as users run it.
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

function field(output: string, label: string): string {
  const match = new RegExp(`^\\s*${label}:\\s+(\\S.*)$`, "m").exec(output);
  if (!match?.[1]) throw new Error(`no ${label} in output:\n${output}`);
  return match[1].trim();
}

it.skipIf(!existsSync(cli))("prints the URLs, token and seed ids, serves them, and exits 0 on SIGINT", async () => {
  const child = spawn(process.execPath, [cli, "--port", "0", "--token", "cli-token"], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", () => output.includes("Ctrl-C") && resolve());
      child.on("exit", () => reject(new Error(`CLI exited early:\n${output}`)));
    });
    const baseUrl = field(output, "base URL");
    const productsUrl = field(output, "products URL");
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(productsUrl).toBe(`${baseUrl}/products`);
    expect(field(output, "token")).toBe("cli-token");
    expect(field(output, "provider")).toBe("sandbox-bank");
    const consent = field(output, "consents").split(/[ ,]+/)[0];

    const headers = { Authorization: "Bearer cli-token" };
    const response = await fetch(`${baseUrl}/consents/v1/${consent}`, { headers });
    expect(response.status).toBe(200);
    const account = field(output, "accounts").split(", ")[0];
    const page = await fetch(`${productsUrl}/statements/v2/sandbox-bank/${account}`, { headers });
    expect(page.status).toBe(200);
  } finally {
    child.kill("SIGINT");
  }
  expect(await exited).toBe(0);
});

it.skipIf(!existsSync(cli))("prints the IdP URL, client id, client secret and sandbox users, and the IdP serves them", async () => {
  const { output, stop } = await serveCli(["--require-user-tokens"]);
  try {
    const idpUrl = field(output, "IdP URL");
    expect(idpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(idpUrl).not.toBe(field(output, "base URL"));
    expect(field(output, "client id")).toBe("fdxkit-sandbox-app");
    expect(field(output, "client secret")).toBe("fdxkit-sandbox-secret");
    expect(field(output, "users")).toBe("user_good / pass_good (ACC-1001, ACC-1002, ACC-1003); user_many / pass_many (ACC-1004, ACC-1005)");
    expect(field(output, "variations")).toBe("user tokens required");
    const discovery = await (await fetch(`${idpUrl}/.well-known/openid-configuration`)).json();
    expect(discovery.issuer).toBe(idpUrl);
    // The service token no longer reads statements.
    const page = await fetch(`${field(output, "products URL")}/statements/v2/sandbox-bank/ACC-1001`, {
      headers: { Authorization: `Bearer ${field(output, "token")}` },
    });
    expect([page.status, await page.json()]).toEqual([401, { code: 602, message: "Customer not authorized" }]);
  } finally {
    expect(await stop()).toBe(0);
  }
});

/** Starts the CLI with these flags; resolves with its output once it serves. */
async function serveCli(args: string[]) {
  const child = spawn(process.execPath, [cli, "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", () => output.includes("Ctrl-C") && resolve());
    child.on("exit", () => reject(new Error(`CLI exited early:\n${output}`)));
  });
  return { output, stop: () => (child.kill("SIGINT"), exited) };
}

it.skipIf(!existsSync(cli))("sets the provider variations from flags and prints them", async () => {
  const { output, stop } = await serveCli([
    "--latency",
    "5",
    "--faults",
    "0",
    "--fault-seed",
    "3",
    "--pagination",
    "page",
    "--no-prev-links",
    "--redirect-documents",
  ]);
  try {
    expect(field(output, "variations")).toBe("latency 5 ms, faults 0 (seed 3), page objects, no prev links, documents by redirect");
    const documents = field(output, "documents");
    const productsUrl = field(output, "products URL");
    expect(documents).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(documents).not.toBe(field(output, "base URL"));
    const headers = { Authorization: `Bearer ${field(output, "token")}` };
    const page = await (await fetch(`${productsUrl}/statements/v2/sandbox-bank/ACC-1004?limit=100`, { headers })).json();
    expect(page.links).toBeUndefined();
    expect(page.page).toEqual({ totalElements: 105, nextOffset: expect.any(String) });
    const redirect = await fetch(new URL(page.statements[0].links[0].href, productsUrl), { headers, redirect: "manual" });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("Location")?.startsWith(`${documents}/`)).toBe(true);
  } finally {
    expect(await stop()).toBe(0);
  }
});

it.skipIf(!existsSync(cli))("prints no variations line by default, and faults every call at --faults 1", async () => {
  const plain = await serveCli([]);
  expect(plain.output).not.toContain("variations:");
  expect(plain.output).not.toContain("documents:");
  await plain.stop();
  const faulty = await serveCli(["--faults", "1"]);
  try {
    const response = await fetch(`${field(faulty.output, "base URL")}/consents/v1/consent-active-1`).catch((error: unknown) => error);
    if (response instanceof Response) expect([503, 429]).toContain(response.status);
    else expect((response as { cause?: { code?: string } }).cause?.code).toBe("ECONNRESET");
  } finally {
    await faulty.stop();
  }
});

it.skipIf(!existsSync(cli))("exits 2 with the usage for a bad flag value or an unknown flag", () => {
  for (const args of [["--latency", "-5"], ["--faults", "2"], ["--pagination", "cursor"], ["--bogus"]]) {
    const result = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
    expect(result.status, args.join(" ")).toBe(2);
    expect(result.stderr, args.join(" ")).toContain("Usage: fdxkit-mock");
  }
});

it.skipIf(!existsSync(cli))("delivers webhooks over mutual TLS with the certificate files given, retrying as --retry-delays says", async () => {
  const certs = makeCertificates();
  const dir = mkdtempSync(join(tmpdir(), "fdxkit-mock-cli-"));
  const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
  const received: (string | undefined)[] = [];
  let failFirst = true;
  const server = createWebhookServer({
    handler: createWebhookHandler({
      onNotification: (_n: Notification, request: Request) => {
        received.push(getPeerCertificate(request)?.fingerprint256);
        if (failFirst) {
          failFirst = false;
          throw new Error("first attempt fails");
        }
      },
    }),
    tls: { key: certs.server.key, cert: certs.server.cert, ca: certs.ca.cert },
    clientCertificates: { fingerprints: [certs.client.fingerprint256] },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const callbackUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const { output, stop } = await serveCli([
    "--retry-delays",
    "10,10",
    "--webhook-cert",
    file("client.pem", certs.client.cert),
    "--webhook-key",
    file("client.key", certs.client.key),
    "--webhook-ca",
    file("ca.pem", certs.ca.cert),
  ]);
  try {
    expect(field(output, "variations")).toBe("retry delays 10,10, webhooks over mutual TLS");
    const headers = { Authorization: `Bearer ${field(output, "token")}`, "Content-Type": "application/json" };
    const baseUrl = field(output, "base URL");
    const created = await fetch(`${baseUrl}/notifications/v1/subscriptions`, {
      method: "POST",
      headers,
      body: JSON.stringify({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl }),
    });
    const { subscriptionId } = await created.json();
    expect((await fetch(`${baseUrl}/notifications/v1/test`, { method: "POST", headers, body: JSON.stringify({ id: subscriptionId }) })).status).toBe(200);
    // Two deliveries over mutual TLS from the child process: more than expect.poll's default 1 s on a loaded machine.
    await expect.poll(() => received.length, { timeout: 10_000 }).toBe(2);
    expect(received).toEqual([certs.client.fingerprint256, certs.client.fingerprint256]);
  } finally {
    expect(await stop()).toBe(0);
    server.closeAllConnections();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

it.skipIf(!existsSync(cli))("exits 2 for webhook certificate flags it cannot use", () => {
  for (const args of [
    ["--webhook-cert", "c.pem"],
    ["--webhook-cert", "/no/such/file.pem", "--webhook-key", "/no/such/file.key"],
    ["--retry-delays", "10,x"],
  ]) {
    const result = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
    expect(result.status, args.join(" ")).toBe(2);
    expect(result.stderr, args.join(" ")).toContain("Usage: fdxkit-mock");
  }
});

it.skipIf(!existsSync(cli))("--require-actor-type (repeatable) makes statement calls to those providers need FDX-API-Actor-Type", async () => {
  const { output, stop } = await serveCli(["--require-actor-type", "sandbox-bank", "--require-actor-type", "other-bank"]);
  try {
    expect(field(output, "variations")).toBe("actor type required by sandbox-bank, other-bank");
    const url = `${field(output, "products URL")}/statements/v2/sandbox-bank/ACC-1001?limit=1`;
    const authorization = `Bearer ${field(output, "token")}`;
    const refused = await fetch(url, { headers: { Authorization: authorization } });
    expect([refused.status, await refused.json()]).toEqual([
      400,
      { code: 401, message: "Invalid Input", debugMessage: 'FDX-API-Actor-Type is required by provider "sandbox-bank"' },
    ]);
    expect((await fetch(url, { headers: { Authorization: authorization, "FDX-API-Actor-Type": "BATCH" } })).status).toBe(200);
  } finally {
    expect(await stop()).toBe(0);
  }
});

it.skipIf(!existsSync(cli))("--provider-rate-limit P=LIMIT/MS (repeatable) limits statement calls to each provider", async () => {
  const { output, stop } = await serveCli(["--provider-rate-limit", "sandbox-bank=2/60000", "--provider-rate-limit", "other-bank=5"]);
  try {
    expect(field(output, "variations")).toBe("rate limits sandbox-bank 2 per 60000 ms, other-bank 5 per 1000 ms");
    const url = `${field(output, "products URL")}/statements/v2/sandbox-bank/ACC-1001?limit=1`;
    const headers = { Authorization: `Bearer ${field(output, "token")}` };
    expect((await fetch(url, { headers })).status).toBe(200);
    expect((await fetch(url, { headers })).status).toBe(200);
    const limited = await fetch(url, { headers });
    expect([limited.status, await limited.json()]).toEqual([429, { code: "1207", message: "Too Many Requests" }]);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(55);
  } finally {
    expect(await stop()).toBe(0);
  }
});

it.skipIf(!existsSync(cli))("exits 2 for a --provider-rate-limit it cannot read", () => {
  for (const value of ["sandbox-bank", "sandbox-bank=0", "sandbox-bank=2/0", "sandbox-bank=x/1000", "=3"]) {
    const result = spawnSync(process.execPath, [cli, "--provider-rate-limit", value], { encoding: "utf8" });
    expect(result.status, value).toBe(2);
    expect(result.stderr, value).toContain(`Invalid --provider-rate-limit ${value} (PROVIDER=LIMIT or PROVIDER=LIMIT/MS`);
    expect(result.stderr, value).toContain("Usage: fdxkit-mock");
  }
});
