// `actorType`: FDX-API-Actor-Type on statement calls only (lists, every page, downloads), from the client,
// withOptions or the call; anything but "user" or "batch" refused before a request.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClient, FdxValidationError, type ActorType, type ClientOptions } from "../../src/index.js";
import { json, startServer, statement, type TestServer } from "../support/statements.js";

const PDF = Buffer.from("%PDF-1.7\n%%EOF\n");
const LIST = "/products/statements/v2/P/A";

let server: TestServer;
beforeAll(async () => {
  server = await startServer((req, res) => {
    const url = req.url ?? "";
    if (url === LIST) return json(res, 200, { statements: [statement("s1", `${LIST}/s1`)], links: { next: { href: `${LIST}?cursor=2` } } });
    if (url === `${LIST}?cursor=2`) return json(res, 200, { statements: [statement("s2", `${LIST}/s2`)] });
    if (url.startsWith(`${LIST}/`)) {
      res.writeHead(200, { "content-type": "application/pdf", "content-length": PDF.length });
      return res.end(PDF);
    }
    if (url === "/consents/v1/c-1") return json(res, 200, { id: "c-1", status: "ACTIVE" });
    if (url === "/notifications/v1/subscriptions") return json(res, 200, []);
    if (url.startsWith("/notifications/v1/maintenance/")) return json(res, 200, { notificationPayloadId: "m-1" });
    json(res, 404, { code: "NotFound", message: "resource not found" });
  });
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
});

const make = (options: Partial<ClientOptions> = {}) =>
  createClient({ baseUrl: server.origin, productsUrl: `${server.origin}/products`, token: "tkn", maxRetries: 0, ...options });

/** The FDX-API-Actor-Type of every request received, in order (undefined where none was sent). */
const sent = () => server.received.map((r) => r.headers["fdx-api-actor-type"]);

/** A list of two pages, a download by statement, one by href and one by ids. */
async function statementCalls(client: ReturnType<typeof make>, actorType?: ActorType) {
  const options = actorType ? { actorType } : {};
  const statements = await client.statements.list({ providerId: "P", accountId: "A" }, options).toArray();
  expect(statements.map((s) => s.statementId)).toEqual(["s1", "s2"]);
  await (await client.statements.download(statements[0]!, options)).arrayBuffer();
  await (await client.statements.download(`${LIST}/s2`, options)).arrayBuffer();
  await (await client.statements.download({ providerId: "P", accountId: "A", statementId: "s3" }, options)).arrayBuffer();
}

async function supportCalls(client: ReturnType<typeof make>, actorType?: ActorType) {
  const options = actorType ? { actorType } : {};
  await client.consents.get("c-1", options);
  await client.subscriptions.list(options);
  await client.maintenance.get("m-1", options);
}

describe("which calls carry it", () => {
  it.each([
    ["user", "USER"],
    ["batch", "BATCH"],
  ] as const)("a client's %s goes as %s on every page and every download, never on consents, subscriptions or maintenance", async (actorType, header) => {
    const client = make({ actorType });
    await statementCalls(client);
    expect(sent()).toEqual([header, header, header, header, header]);
    server.received.length = 0;
    await supportCalls(client);
    expect(sent()).toEqual([undefined, undefined, undefined]);
    expect(server.received.map((r) => r.url)).toEqual(["/consents/v1/c-1", "/notifications/v1/subscriptions", "/notifications/v1/maintenance/m-1"]);
  });

  it("is absent when no actor type is set", async () => {
    await statementCalls(make());
    expect(sent()).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(server.received.every((r) => !Object.keys(r.headers).some((name) => name.includes("actor")))).toBe(true);
  });

  it("a call's actor type wins over the client's, for that call only", async () => {
    const client = make({ actorType: "user" });
    await statementCalls(client, "batch");
    expect(sent()).toEqual(["BATCH", "BATCH", "BATCH", "BATCH", "BATCH"]);
    server.received.length = 0;
    await client.statements.list({ providerId: "P", accountId: "A" }).toArray();
    expect(sent()).toEqual(["USER", "USER"]);
    server.received.length = 0;
    // Given on a support call it is still not sent there.
    await supportCalls(client, "batch");
    expect(sent()).toEqual([undefined, undefined, undefined]);
  });

  it("withOptions sets or changes it for a client of its own and leaves the original as it was", async () => {
    const base = make();
    const batch = base.withOptions({ actorType: "batch" });
    const user = batch.withOptions({ actorType: "user" });
    // undefined keeps the client's, as for every option of withOptions.
    const kept = batch.withOptions({ actorType: undefined });
    for (const client of [base, batch, user, kept]) await client.statements.list({ providerId: "P", accountId: "A" }).toArray();
    expect(sent()).toEqual([undefined, undefined, "BATCH", "BATCH", "USER", "USER", "BATCH", "BATCH"]);
  });

  it("a header of that name in the call's headers is sent as given", async () => {
    await make({ actorType: "user" })
      .statements.list({ providerId: "P", accountId: "A" }, { headers: { "FDX-API-Actor-Type": "BATCH" } })
      .toArray();
    expect(sent()).toEqual(["BATCH", "BATCH"]);
  });
});

describe("values other than user and batch", () => {
  const bad: unknown[] = ["USER", "Batch", "", "system", null, 1, { user: true }];
  const issue = [{ path: "actorType", message: 'must be "user" or "batch"' }];

  it.each(bad)("createClient refuses %j with FdxValidationError", (value) => {
    const error = (() => {
      try {
        make({ actorType: value as ActorType });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues).toEqual(issue);
    expect((error as Error).message).toBe('Invalid input: actorType: must be "user" or "batch"');
  });

  it.each(bad)("withOptions refuses %j", (value) => {
    expect(() => make().withOptions({ actorType: value as ActorType })).toThrow(FdxValidationError);
  });

  it.each(bad)("a call refuses %j before any request: lists, downloads and support calls alike", async (value) => {
    const client = make({ actorType: "user" });
    const options = { actorType: value as ActorType };
    const failures = await Promise.all([
      client.statements
        .list({ providerId: "P", accountId: "A" }, options)
        .toArray()
        .catch((e: unknown) => e),
      client.statements.download(`${LIST}/s1`, options).catch((e: unknown) => e),
      client.consents.get("c-1", options).catch((e: unknown) => e),
      client.subscriptions.list(options).catch((e: unknown) => e),
    ]);
    for (const error of failures) {
      expect(error).toBeInstanceOf(FdxValidationError);
      expect((error as FdxValidationError).issues).toEqual(issue);
    }
    expect(server.received).toEqual([]);
  });
});
