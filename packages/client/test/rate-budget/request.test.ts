// createClient({ rateBudget }): what the request path takes from the budget, and when it pauses a provider.
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, FdxAbortError, FdxValidationError, memoryRateBudget, type RateBudget } from "../../src/index.js";
import { rejectionOf, startHttp, type RealServer } from "../support/http.js";

/** A budget that records every take and pause, in order, and lets a test hold the takes. */
function recordingBudget(hold?: () => Promise<void>) {
  const log: string[] = [];
  const budget: RateBudget = {
    async take(providerId, actor, signal) {
      log.push(`take ${providerId} ${actor}`);
      if (hold) {
        await new Promise<void>((resolve, reject) => {
          signal?.addEventListener("abort", () => reject(new FdxAbortError(undefined, { cause: signal.reason })), { once: true });
          void hold().then(resolve);
        });
      }
    },
    async pause(providerId, ms) {
      log.push(`pause ${providerId} ${ms}`);
    },
  };
  return { budget, log };
}

const page = (res: ServerResponse) =>
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ statements: [{ statementId: "s1", accountId: "a" }] }));

let servers: RealServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
async function serve(handler: Parameters<typeof startHttp>[0]) {
  const server = await startHttp(handler);
  servers.push(server);
  return server;
}

describe("createClient({ rateBudget })", () => {
  it("takes one per attempt of a statement call, retries included, from the provider in its path, as a user by default", async () => {
    const server = await serve((_req, res, n) => (n <= 2 ? res.writeHead(503, { "retry-after": "0" }).end() : page(res)));
    const { budget, log } = recordingBudget();
    const client = createClient({ baseUrl: server.url, token: "t", rateBudget: budget });
    expect(await client.statements.list({ providerId: "bank/a", accountId: "acct-1" }).toArray()).toHaveLength(1);
    expect(log).toEqual(["take bank/a user", "take bank/a user", "take bank/a user"]);
  });

  it("takes as the client's or the call's actor type", async () => {
    const server = await serve((_req, res) => page(res));
    const { budget, log } = recordingBudget();
    const jobs = createClient({ baseUrl: server.url, token: "t", rateBudget: budget, actorType: "batch" });
    await jobs.statements.list({ providerId: "bank", accountId: "acct-1" }).toArray();
    await jobs.statements.list({ providerId: "bank", accountId: "acct-1" }, { actorType: "user" }).toArray();
    await jobs.statements.download({ providerId: "bank", accountId: "acct-1", statementId: "s1" });
    expect(log).toEqual(["take bank batch", "take bank user", "take bank batch"]);
  });

  it("takes nothing for notification, consent and maintenance calls", async () => {
    const server = await serve((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: "c1", status: "ACTIVE" })));
    const { budget, log } = recordingBudget();
    await createClient({ baseUrl: server.url, token: "t", rateBudget: budget }).consents.get("c1");
    expect(log).toEqual([]);
  });

  it("pauses the provider after its 429 (Retry-After, else 1 s), before the client's own retry", async () => {
    const server = await serve((_req, res, n) => {
      if (n === 1) return res.writeHead(429, { "retry-after": "1", "content-type": "application/json" }).end('{"code":1207,"message":"Rate limit exceeded"}');
      if (n === 2) return res.writeHead(429, { "content-type": "application/json" }).end('{"code":1207,"message":"Rate limit exceeded"}');
      page(res);
    });
    const { budget, log } = recordingBudget();
    const client = createClient({ baseUrl: server.url, token: "t", rateBudget: budget });
    await client.statements.list({ providerId: "bank", accountId: "acct-1" }).toArray();
    expect(log).toEqual(["take bank user", "pause bank 1000", "take bank user", "pause bank 1000", "take bank user"]);
  });

  it("does not pause the provider for a 429 from a document host it redirected a download to", async () => {
    const documents = await serve((_req, res) => res.writeHead(429, { "retry-after": "0" }).end());
    const products = await serve((_req, res) => res.writeHead(302, { location: `${documents.url}/doc.pdf` }).end());
    const { budget, log } = recordingBudget();
    const client = createClient({ baseUrl: products.url, token: "t", rateBudget: budget, maxRetries: 1 });
    await expect(client.statements.download({ providerId: "bank", accountId: "acct-1", statementId: "s1" })).rejects.toMatchObject({ status: 429 });
    expect(log).toEqual(["take bank user", "take bank user"]);
  });

  it("waits for its turn before the attempt's timeout starts, and the caller's signal still ends the wait", async () => {
    const server = await serve((_req, res) => page(res));
    let release!: () => void;
    const { budget } = recordingBudget(() => new Promise<void>((resolve) => (release = resolve)));
    const client = createClient({ baseUrl: server.url, token: "t", rateBudget: budget, timeoutMs: 50 });
    const listed = client.statements.list({ providerId: "bank", accountId: "acct-1" }).toArray();
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    expect(await listed).toHaveLength(1);
    const controller = new AbortController();
    const waiting = client.statements.list({ providerId: "bank", accountId: "acct-1" }, { signal: controller.signal }).toArray();
    setTimeout(() => controller.abort(new Error("user left")), 20);
    await expect(waiting).rejects.toBeInstanceOf(FdxAbortError);
    expect(server.count).toBe(1);
  });

  it("holds a provider to its rate with memoryRateBudget, and lets other providers go", async () => {
    const server = await serve((_req, res) => page(res));
    const client = createClient({ baseUrl: server.url, token: "t", rateBudget: memoryRateBudget({ limits: { slow: { perSecond: 10, burst: 1 } } }) });
    const started = performance.now();
    await Promise.all([1, 2, 3, 4].map(() => client.statements.list({ providerId: "slow", accountId: "a" }).toArray()));
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
    const other = performance.now();
    await Promise.all([1, 2, 3, 4].map(() => client.statements.list({ providerId: "fast", accountId: "a" }).toArray()));
    expect(performance.now() - other).toBeLessThan(280);
  });

  it("takes a download by a link of another shape from the providerId option, and from none without it", async () => {
    const documents = await serve((_req, res) => res.writeHead(200, { "content-type": "application/pdf" }).end("%PDF-"));
    const { budget, log } = recordingBudget();
    const client = createClient({ baseUrl: documents.url, token: "t", rateBudget: budget });
    const document = await client.statements.download(`${documents.url}/files/doc-1.pdf`, { providerId: "bank" });
    expect(new TextDecoder().decode(await document.arrayBuffer())).toBe("%PDF-");
    expect(log).toEqual(["take bank user"]);
    await (await client.statements.download(`${documents.url}/files/doc-2.pdf`)).arrayBuffer();
    expect(log).toEqual(["take bank user"]);
  });

  it.each([[""], [42], [null]])("refuses the providerId option %j, naming it, before any request", async (providerId) => {
    const server = await serve((_req, res) => page(res));
    const { budget, log } = recordingBudget();
    const client = createClient({ baseUrl: server.url, token: "t", rateBudget: budget });
    const error = await rejectionOf(client.statements.download(`${server.url}/files/doc-1.pdf`, { providerId: providerId as never }));
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues).toEqual([{ path: "providerId", message: "must be a non-empty string" }]);
    expect(log).toEqual([]);
    expect(server.count).toBe(0);
  });

  it("refuses a rateBudget that is not one, and an empty providerId, before any request", async () => {
    expect(() => createClient({ baseUrl: "https://api.test", token: "t", rateBudget: {} as RateBudget })).toThrow(FdxValidationError);
    expect(() => createClient({ baseUrl: "https://api.test", token: "t", rateBudget: { take: () => Promise.resolve() } as unknown as RateBudget })).toThrow(
      /take and pause/,
    );
    const server = await serve((_req, res) => page(res));
    const { budget, log } = recordingBudget();
    const client = createClient({ baseUrl: server.url, token: "t", rateBudget: budget });
    await expect(client.statements.download({ providerId: "bank", accountId: "a", statementId: "s" }, { providerId: "" })).rejects.toThrow(/providerId/);
    expect(log).toEqual([]);
    expect(server.count).toBe(0);
  });
});
