// FDX error mapping in the browser, against msw's service worker: the
// classes, codes and messages an app branches on must survive the
// browser's fetch, CORS-mode responses and all.
import { delay, http, HttpResponse } from "msw";
import { expect, it } from "vitest";
import {
  createClient,
  FdxApiError,
  FdxErrorCode,
  FdxInternalServerError,
  FdxMaintenanceError,
  FdxNotFoundError,
  FdxRateLimitError,
  FdxUnauthorizedError,
} from "../src/index.js";
import { API, TOKEN, seen, worker } from "./msw-worker.js";

const client = createClient({ baseUrl: API, token: TOKEN, maxRetries: 0 });

it("runs in a real browser, with msw's worker in control", () => {
  // Guards against the project silently falling back to Node or jsdom.
  expect(navigator.userAgent).toMatch(/Chrome/);
  expect((globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node).toBeUndefined();
  expect(navigator.serviceWorker.controller?.scriptURL).toMatch(/\/mockServiceWorker\.js$/);
});

it("401 becomes FdxUnauthorizedError with code 1205, and the request carried the bearer token", async () => {
  worker.use(
    http.get(`${API}/consents/v1/:id`, () => HttpResponse.json({ code: 1205, message: "Unauthorized", debugMessage: "token expired" }, { status: 401 })),
  );
  const error = await client.consents.get("c-1").catch((e: unknown) => e);
  expect(error).toBeInstanceOf(FdxUnauthorizedError);
  expect(error).toMatchObject({
    status: 401,
    code: FdxErrorCode.Unauthorized,
    message: "Unauthorized",
    debugMessage: "token expired",
    method: "GET",
    url: `${API}/consents/v1/c-1`,
  });
  expect(seen[0]?.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
  // The token is never in what an app would log.
  expect(String(error)).not.toContain(TOKEN);
  expect(JSON.stringify(error)).not.toContain(TOKEN);
  expect((error as Error).stack ?? "").not.toContain(TOKEN);
});

it("404 NotFound, 429 with Retry-After and 503 maintenance map to their classes", async () => {
  worker.use(
    http.get(`${API}/notifications/v1/maintenance/missing`, () => HttpResponse.json({ code: "NotFound", message: "Not found" }, { status: 404 })),
    http.get(`${API}/notifications/v1/maintenance/busy`, () =>
      HttpResponse.json({ code: "1207", message: "Too Many Requests" }, { status: 429, headers: { "Retry-After": "7" } }),
    ),
    http.get(`${API}/notifications/v1/maintenance/down`, () =>
      HttpResponse.json({ code: 503, message: "Scheduled Maintenance" }, { status: 503, headers: { "Retry-After": "120" } }),
    ),
  );
  const notFound = await client.maintenance.get("missing").catch((e: unknown) => e);
  expect(notFound).toBeInstanceOf(FdxNotFoundError);
  expect(notFound).toMatchObject({ status: 404, code: FdxErrorCode.NotFound, message: "Not found" });

  const limited = await client.maintenance.get("busy").catch((e: unknown) => e);
  expect(limited).toBeInstanceOf(FdxRateLimitError);
  expect(limited).toMatchObject({ status: 429, code: FdxErrorCode.TooManyRequests, retryAfterMs: 7000 });

  const down = await client.maintenance.get("down").catch((e: unknown) => e);
  expect(down).toBeInstanceOf(FdxMaintenanceError);
  expect(down).toMatchObject({ status: 503, code: FdxErrorCode.ScheduledMaintenance, message: "Scheduled Maintenance" });
});

it("plain-text and HTML error bodies still give a readable message", async () => {
  worker.use(
    http.get(`${API}/consents/v1/text`, () => new HttpResponse("database is on fire", { status: 500 })),
    http.get(
      `${API}/consents/v1/html`,
      () =>
        new HttpResponse("<html><body>Bad Gateway</body></html>", {
          status: 500,
          statusText: "Internal Server Error",
          headers: { "Content-Type": "text/html" },
        }),
    ),
  );
  const text = await client.consents.get("text").catch((e: unknown) => e);
  expect(text).toBeInstanceOf(FdxInternalServerError);
  expect(text).toMatchObject({ status: 500, code: undefined, message: "database is on fire", body: "database is on fire" });

  const html = await client.consents.get("html").catch((e: unknown) => e);
  expect(html).toBeInstanceOf(FdxApiError);
  expect((html as FdxApiError).message).toBe("Internal Server Error");
});

it("retries a 503 and then returns the data, with no extra work for the app", async () => {
  let attempts = 0;
  worker.use(
    http.get(`${API}/consents/v1/flaky`, async () => {
      attempts++;
      if (attempts === 1) {
        return HttpResponse.json({ code: "503", message: "Scheduled Maintenance" }, { status: 503, headers: { "Retry-After": "0" } });
      }
      await delay(0);
      return HttpResponse.json({ id: "flaky", status: "ACTIVE" });
    }),
  );
  const retrying = createClient({ baseUrl: API, token: TOKEN, maxRetries: 1 });
  await expect(retrying.consents.get("flaky")).resolves.toMatchObject({ id: "flaky", status: "ACTIVE" });
  expect(attempts).toBe(2);
});
