import { inspect } from "node:util";
import { HttpResponse } from "msw";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createClient,
  FdxAbortError,
  FdxApiError,
  FdxBadRequestError,
  FdxConnectionError,
  FdxError,
  FdxInternalServerError,
  FdxMaintenanceError,
  FdxMethodNotAllowedError,
  FdxNotFoundError,
  FdxNotImplementedError,
  FdxRateLimitError,
  FdxResponseError,
  FdxTimeoutError,
  FdxUnauthorizedError,
  FdxValidationError,
  type ClientOptions,
} from "../../src/index.js";
import { BASE, rejectionOf, refusedPort, startHttp, useMsw, type RealServer } from "../client/support.js";

const SECRET = "eyJhbGciOiJIUzI1NiJ9.SECRET-TOKEN-c0ffee.sig";
const { on } = useMsw();

let hanging: RealServer;
let refused: number;
beforeAll(async () => {
  hanging = await startHttp(() => {});
  refused = await refusedPort();
});
afterAll(() => hanging.close());

function expectNoToken(error: unknown) {
  expect(error).toBeInstanceOf(FdxError);
  const e = error as Error;
  for (const view of [e.message, e.stack ?? "", String(e), JSON.stringify(e), inspect(e, { depth: 10 })]) {
    expect(view).not.toContain(SECRET);
    expect(view).not.toContain("SECRET-TOKEN");
  }
}

// Both a string token and a token function, so neither path leaks.
describe.each([
  ["a string token", SECRET],
  ["a token function", async () => SECRET],
] as const)("with %s", (_, token) => {
  const client = (options: Partial<ClientOptions> = {}) => createClient({ baseUrl: BASE, token, maxRetries: 0, ...options });

  it.each([
    [400, FdxBadRequestError],
    [401, FdxUnauthorizedError],
    [404, FdxNotFoundError],
    [405, FdxMethodNotAllowedError],
    [429, FdxRateLimitError],
    [500, FdxInternalServerError],
    [501, FdxNotImplementedError],
    [503, FdxMaintenanceError],
    [502, FdxApiError],
  ] as const)("FdxApiError for %i", async (status, cls) => {
    on("get", `${BASE}/consents/v1/c-1`, () =>
      HttpResponse.json({ code: String(status), message: "nope", debugMessage: "dbg" }, { status }),
    );
    const error = await rejectionOf(client().consents.get("c-1"));
    expect(error).toBeInstanceOf(cls);
    expectNoToken(error);
  });

  it("FdxConnectionError (refused)", async () => {
    const error = await rejectionOf(client({ baseUrl: `http://127.0.0.1:${refused}` }).consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxConnectionError);
    expectNoToken(error);
  });

  it("FdxTimeoutError", async () => {
    const error = await rejectionOf(client({ baseUrl: hanging.url, timeoutMs: 30 }).consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxTimeoutError);
    expectNoToken(error);
  });

  it("FdxAbortError", async () => {
    const controller = new AbortController();
    const pending = client({ baseUrl: hanging.url }).consents.get("c-1", { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const error = await rejectionOf(pending);
    expect(error).toBeInstanceOf(FdxAbortError);
    expectNoToken(error);
  });

  it("FdxValidationError", async () => {
    const error = await rejectionOf(client().subscriptions.get(".."));
    expect(error).toBeInstanceOf(FdxValidationError);
    expectNoToken(error);
  });

  it("FdxResponseError", async () => {
    on("get", `${BASE}/consents/v1/c-1`, () => new HttpResponse("{oops", { status: 200 }));
    const error = await rejectionOf(client().consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxResponseError);
    expectNoToken(error);
  });
});

it("a token with characters a header cannot hold is refused without quoting it", async () => {
  const bad = `${SECRET}\nX-Injected: 1`;
  const error = await rejectionOf(createClient({ baseUrl: BASE, token: bad }).consents.get("c-1"));
  expect(error).toBeInstanceOf(FdxValidationError);
  expectNoToken(error);
});
