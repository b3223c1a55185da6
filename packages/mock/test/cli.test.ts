import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

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
