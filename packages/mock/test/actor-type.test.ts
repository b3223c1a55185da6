// FDX-API-Actor-Type at the HTTP level (fetch, no SDK): what `requests()` records, and `requireActorType`,
// against the real server and the same through createMockHandlers under msw.
import { describe, expect, it } from "vitest";
import { createMockApp, type MockControls } from "../src/index.js";
import { useEitherMock } from "./helpers.js";

const LIST = "/products/statements/v2/sandbox-bank/ACC-1001";

const start = useEitherMock();

function call(mock: MockControls, path: string, actorType?: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers({ Authorization: `Bearer ${mock.token}` });
  if (actorType !== undefined) headers.set("FDX-API-Actor-Type", actorType);
  return fetch(`${new URL(mock.baseUrl).origin}${path}`, { ...init, headers });
}

describe.each(["server", "msw"] as const)("%s", (kind) => {
  it("requests() records each request's method, path with query, and actor type (undefined without one); reset() clears it", async () => {
    const mock = await start(kind);
    await call(mock, `${LIST}?limit=2`, "USER");
    await call(mock, `${LIST}?limit=2`, "BATCH");
    await call(mock, `${LIST}?limit=2`);
    await call(mock, "/consents/v1/no-such-consent", "USER");
    await call(mock, "/notifications/v1/subscriptions", undefined, { method: "POST" });
    expect(mock.requests()).toEqual([
      { method: "GET", path: `${LIST}?limit=2`, actorType: "USER" },
      { method: "GET", path: `${LIST}?limit=2`, actorType: "BATCH" },
      { method: "GET", path: `${LIST}?limit=2`, actorType: undefined },
      { method: "GET", path: "/consents/v1/no-such-consent", actorType: "USER" },
      { method: "POST", path: "/notifications/v1/subscriptions", actorType: undefined },
    ]);
    // A copy: changing it changes nothing recorded.
    mock.requests()[0]!.actorType = "changed";
    expect(mock.requests()[0]!.actorType).toBe("USER");
    mock.reset();
    expect(mock.requests()).toEqual([]);
  });

  it("requireActorType: statement calls to that provider without USER or BATCH answer 400 Invalid Input naming the header", async () => {
    const mock = await start(kind, { requireActorType: ["sandbox-bank"] });
    const missing = await call(mock, LIST);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ code: 401, message: "Invalid Input", debugMessage: 'FDX-API-Actor-Type is required by provider "sandbox-bank"' });
    const wrong = await call(mock, LIST, "user");
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({
      code: 401,
      message: "Invalid Input",
      debugMessage: 'FDX-API-Actor-Type must be USER or BATCH, not "user" by provider "sandbox-bank"',
    });
    // Documents too, before anything else is looked at (the statement id here is unknown).
    const document = await call(mock, `${LIST}/unknown-statement`);
    expect(document.status).toBe(400);
    expect(((await document.json()) as { debugMessage: string }).debugMessage).toBe('FDX-API-Actor-Type is required by provider "sandbox-bank"');

    const user = await call(mock, `${LIST}?limit=1`, "USER");
    expect(user.status).toBe(200);
    const { statements } = (await user.json()) as { statements: { links: { href: string }[] }[] };
    const pdf = await call(mock, statements[0]!.links[0]!.href, "BATCH");
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    // Not a statement call: no header needed.
    expect((await call(mock, "/notifications/v1/subscriptions")).status).toBe(200);
  });

  it("a provider not named keeps answering without the header", async () => {
    const mock = await start(kind, { requireActorType: ["other-bank"] });
    expect((await call(mock, LIST)).status).toBe(200);
  });
});

describe("options and limits", () => {
  it.each([["sandbox-bank"], [[""]], [[1]], [null]])("requireActorType %j is a TypeError", (value) => {
    expect(() => createMockApp({ requireActorType: value as string[] })).toThrow(
      new TypeError("requireActorType must be an array of provider ids (non-empty strings)"),
    );
  });

  it("keeps the last 1,000 requests only", async () => {
    const app = createMockApp();
    for (let i = 0; i < 1005; i++) await app.fetch(new Request(`${app.baseUrl}/notifications/v1/maintenance/m-${i}`));
    const records = app.requests();
    expect(records).toHaveLength(1000);
    expect(records[0]!.path).toBe("/notifications/v1/maintenance/m-5");
    expect(records.at(-1)!.path).toBe("/notifications/v1/maintenance/m-1004");
  });

  it("a browser's preflight may send the header", async () => {
    const app = createMockApp();
    const answer = await app.fetch(new Request(`${app.productsUrl}/statements/v2/sandbox-bank/ACC-1001`, { method: "OPTIONS" }));
    expect(answer.headers.get("access-control-allow-headers")).toContain("FDX-API-Actor-Type");
  });
});
