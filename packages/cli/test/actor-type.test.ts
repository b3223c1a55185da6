// Who is asking, as the CLI tells providers: `statements list` is a user at the terminal (USER), `statements
// export` a job (BATCH), against a sandbox provider that refuses statement calls without FDX-API-Actor-Type.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMockServer, type MockServer } from "@fdxkit/mock";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { assertBuilt, mockFlags, runCli, TOKEN } from "./helpers.js";

let mock: MockServer;
beforeAll(async () => {
  assertBuilt();
  mock = await startMockServer({ port: 0, token: TOKEN, requireActorType: ["sandbox-bank"] });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

/** "METHOD path-without-query ACTOR" of every request the sandbox received. */
const seen = () => mock.requests().map((r) => `${r.method} ${r.path.replace(/\?.*/, "")} ${r.actorType ?? "-"}`);
const LIST = "/products/statements/v2/sandbox-bank";

it("statements list sends USER on every page", async () => {
  const result = await runCli(["statements", "list", "--provider", "sandbox-bank", "--account", "ACC-1001", ...mockFlags(mock), "--json"]);
  expect(result.code, result.stderr).toBe(0);
  expect(JSON.parse(result.stdout)).toHaveLength(24);
  // The mock's default page size is 50: one page.
  expect(seen()).toEqual([`GET ${LIST}/ACC-1001 USER`]);
});

it("statements export sends BATCH on every list page and every download", async () => {
  const dir = await mkdtemp(join(tmpdir(), "fdxkit-cli-actor-"));
  try {
    const args = ["statements", "export", "--provider", "sandbox-bank", "--account", "ACC-1003", "--from", "2026-06-01", "--to", "2026-10-31"];
    const result = await runCli([...args, "--out", dir, ...mockFlags(mock), "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ listed: 5, downloaded: 4, failed: [], listFailed: [] });
    const requests = seen();
    expect(requests).toHaveLength(1 + 4);
    expect(requests[0]).toBe(`GET ${LIST}/ACC-1003 BATCH`);
    for (const request of requests.slice(1)) expect(request).toMatch(new RegExp(`^GET ${LIST}/ACC-1003/[^ ]+ BATCH$`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it("support commands call no statement API, and send no actor type", async () => {
  const consent = mock.seed.consents[0]!;
  expect((await runCli(["consents", "get", String(consent.id), ...mockFlags(mock), "--json"])).code).toBe(0);
  expect((await runCli(["subscriptions", "list", ...mockFlags(mock), "--json"])).code).toBe(0);
  expect(seen()).toEqual([`GET /consents/v1/${String(consent.id)} -`, "GET /notifications/v1/subscriptions -"]);
});

it("statements list of an account without statements (404 1108) prints none and exits 0", async () => {
  const result = await runCli(["statements", "list", "--provider", "sandbox-bank", "--account", "ACC-1005", ...mockFlags(mock)]);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.trim()).toBe("No statements.");
  expect(result.stderr).toBe("");
});
