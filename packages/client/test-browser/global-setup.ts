// Runs in Node before the browser tests: starts real @fdxkit/mock servers on
// 127.0.0.1 and hands their addresses to the pages, which call them over CORS.
// @fdxkit/client does not depend on the mock, so its source is imported
// directly (vite transpiles it; no build needed).
import type { TestProject } from "vitest/node";
import { startMockServer, type MockServer } from "../../mock/src/index.js";
import type {} from "./provided.js";

export default async function setup(project: TestProject) {
  const servers: MockServer[] = [];
  try {
    const mock = await startMockServer({ port: 0 });
    servers.push(mock);
    const down = await startMockServer({ port: 0 });
    servers.push(down);
    down.setMaintenance(true);
    const limited = await startMockServer({ port: 0, rateLimit: { limit: 1, windowMs: 60_000 } });
    servers.push(limited);

    project.provide("fdxMock", {
      baseUrl: mock.baseUrl,
      productsUrl: mock.productsUrl,
      token: mock.token,
      providerId: mock.seed.providerId,
      accountIds: mock.seed.accounts.map((a) => a.accountId),
      consentIds: mock.seed.consents.map((c) => c.id ?? "").filter(Boolean),
      maintenanceIds: mock.seed.maintenance.map((m) => m.id ?? "").filter(Boolean),
      maintenanceBaseUrl: down.baseUrl,
      rateLimitedBaseUrl: limited.baseUrl,
    });
  } catch (error) {
    await Promise.all(servers.map((s) => s.close()));
    throw error;
  }
  return async () => {
    await Promise.all(servers.map((s) => s.close()));
  };
}
