import { startMockServer, type MockServer } from "@fdxkit/mock";
import { afterAll, beforeAll, expect, it } from "vitest";
import { assertBuilt, mockFlags, runCli, startCli, TOKEN } from "./helpers.js";

let mock: MockServer;

beforeAll(async () => {
  assertBuilt();
  mock = await startMockServer({ port: 0, token: TOKEN });
});
afterAll(() => mock.close());

function listeningUrl(stderr: string): string | undefined {
  return /Listening for webhooks on (http:\/\/\S+?)\/? /.exec(stderr)?.[1];
}

async function subscribeAndTest(url: string, category: string, type: string): Promise<string> {
  const flags = [...mockFlags(mock), "--allow-insecure-callback-urls", "--json"];
  const created = await runCli(["subscriptions", "create", "--category", category, "--type", type, "--callback-url", `${url}/webhooks`, ...flags]);
  expect(created.code).toBe(0);
  const { subscriptionId } = JSON.parse(created.stdout) as { subscriptionId: string };
  const test = await runCli(["subscriptions", "test", subscriptionId, ...flags]);
  expect(test.code).toBe(0);
  return (JSON.parse(test.stdout) as { notificationId: string }).notificationId;
}

it("listen --json prints each notification the mock posts, and stops cleanly on SIGINT", async () => {
  const listener = startCli(["listen", "--port", "0", "--json"]);
  try {
    await listener.waitFor(({ stderr }) => listeningUrl(stderr) !== undefined, "listening");
    const url = listeningUrl(listener.stderr())!;

    const first = await subscribeAndTest(url, "CONSENT", "CONSENT_REVOKED");
    await listener.waitFor(({ stdout }) => stdout.includes(first), "the first notification");
    const second = await subscribeAndTest(url, "MAINTENANCE", "PLANNED_OUTAGE");
    await listener.waitFor(({ stdout }) => stdout.includes(second), "the second notification");
    await mock.idle();
    expect(mock.deliveries().map((d) => d.status)).toEqual(["delivered", "delivered"]);

    const lines = listener
      .stdout()
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ notificationId: first, category: "CONSENT", type: "CONSENT_REVOKED", notificationPayload: { idType: "CONSENT" } });
    expect(lines[1]).toMatchObject({ notificationId: second, category: "MAINTENANCE", type: "PLANNED_OUTAGE" });
  } finally {
    listener.child.kill("SIGINT");
  }
  const result = await listener.done;
  expect(result.code).toBe(0);
  expect(result.stderr).toContain("Stopped.");
});

it("listen prints readable lines, answers invalid bodies 400 without printing them, and stops on SIGTERM", async () => {
  const listener = startCli(["listen", "--port", "0"]);
  try {
    await listener.waitFor(({ stderr }) => listeningUrl(stderr) !== undefined, "listening");
    const url = listeningUrl(listener.stderr())!;

    const invalid = await fetch(`${url}/hooks`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ hello: "world" }) });
    expect(invalid.status).toBe(400);
    const wrongMethod = await fetch(`${url}/hooks`);
    expect(wrongMethod.status).toBe(405);

    const id = await subscribeAndTest(url, "CONSENT", "CONSENT_UPDATED");
    await listener.waitFor(({ stdout }) => stdout.includes(id), "the notification");
    const lines = listener.stdout().trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`CONSENT/CONSENT_UPDATED  notificationId=${id}  payload=CONSENT:consent-active-1`));
  } finally {
    listener.child.kill("SIGTERM");
  }
  expect((await listener.done).code).toBe(0);
});

it("listen on a port already in use fails with a message", async () => {
  const first = startCli(["listen", "--port", "0"]);
  try {
    await first.waitFor(({ stderr }) => listeningUrl(stderr) !== undefined, "listening");
    const port = new URL(listeningUrl(first.stderr())!).port;
    const second = await runCli(["listen", "--port", port]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain("EADDRINUSE");
  } finally {
    first.child.kill("SIGINT");
  }
  expect((await first.done).code).toBe(0);
});
