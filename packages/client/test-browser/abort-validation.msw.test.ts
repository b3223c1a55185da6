// Abort and input checks in the browser: an aborted call rejects with
// FdxAbortError (name "AbortError", like the platform's), and bad input is
// refused before anything reaches the network.
import { delay, http, HttpResponse } from "msw";
import { expect, it } from "vitest";
import { createClient, FdxAbortError, FdxError, FdxValidationError } from "../src/index.js";
import { API, TOKEN, seen, worker } from "./msw-worker.js";

const client = createClient({ baseUrl: API, token: TOKEN });

it("aborting a pending request rejects with FdxAbortError", async () => {
  let arrived!: () => void;
  const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
  worker.use(
    http.get(`${API}/consents/v1/slow`, async () => {
      arrived();
      await delay("infinite");
      return HttpResponse.json({});
    }),
  );
  const controller = new AbortController();
  const pending = client.consents.get("slow", { signal: controller.signal });
  // Abort only once the request is really in flight, so this is a mid-request abort.
  await requestArrived;
  controller.abort();
  const error = await pending.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(FdxAbortError);
  expect(error).toBeInstanceOf(FdxError);
  expect((error as Error).name).toBe("AbortError");
});

it("an already-aborted signal sends nothing", async () => {
  const controller = new AbortController();
  controller.abort();
  await expect(client.consents.get("c-1", { signal: controller.signal })).rejects.toBeInstanceOf(FdxAbortError);
  expect(seen).toHaveLength(0);
});

it("invalid input throws FdxValidationError and sends no request", async () => {
  const cases: Array<[string, () => Promise<unknown>]> = [
    ["http callback", () => client.subscriptions.create({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "http://evil.test/hook" })],
    ["impossible date", () => client.subscriptions.update("s-1", { effectiveDate: "2024-02-30" })],
    ["empty patch", () => client.subscriptions.update("s-1", {})],
    ["parent-segment id", () => client.consents.get("..")],
    ["empty id", () => client.maintenance.get("")],
  ];
  for (const [label, call] of cases) {
    const error = await call().catch((e: unknown) => e);
    expect(error, label).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues.length, label).toBeGreaterThan(0);
  }
  expect(seen).toHaveLength(0);
});
