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
} from "../../../src/index.js";
import { BASE, rejectionOf, refusedPort, startHttp, useMsw, type RealServer } from "../../support/http.js";

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
  it("a server that echoes the token in message, debugMessage, a header and the body: all redacted", async () => {
    on("get", `${BASE}/consents/v1/c-1`, () =>
      HttpResponse.json(
        { code: "1205", message: `Unauthorized: Bearer ${SECRET}`, debugMessage: `token ${JSON.stringify(SECRET).slice(1, -1)} rejected`, echo: { auth: [`Bearer ${SECRET}`] } },
        { status: 401, headers: { "www-authenticate": `Bearer error="invalid_token", token="${SECRET}"` } },
      ),
    );
    const error = (await rejectionOf(client().consents.get("c-1"))) as FdxApiError;
    expect(error).toBeInstanceOf(FdxUnauthorizedError);
    expectNoToken(error);
    expect(error.message).toBe("Unauthorized: Bearer [redacted]");
    expect(error.debugMessage).toBe("token [redacted] rejected");
    expect(error.body).toEqual({ code: "1205", message: "Unauthorized: Bearer [redacted]", debugMessage: "token [redacted] rejected", echo: { auth: ["Bearer [redacted]"] } });
    expect(error.headers["www-authenticate"]).toBe('Bearer error="invalid_token", token="[redacted]"');
  });

  it("a plain-text body echoing the token, URL-encoded: redacted", async () => {
    on("get", `${BASE}/consents/v1/c-1`, () => HttpResponse.text(`bad token ${encodeURIComponent(SECRET)}`, { status: 400 }));
    const error = (await rejectionOf(client().consents.get("c-1"))) as FdxApiError;
    expectNoToken(error);
    expect(error.message).toBe("bad token [redacted]");
    expect(error.body).toBe("bad token [redacted]");
  });

  it("a custom fetch whose error quotes the request headers: message and cause redacted", async () => {
    const fetch = async (request: Request) => {
      throw new Error(`refused ${request.headers.get("authorization")}`, { cause: new Error(`inner ${SECRET}`) });
    };
    const error = (await rejectionOf(client({ fetch }).consents.get("c-1"))) as FdxConnectionError;
    expect(error).toBeInstanceOf(FdxConnectionError);
    expectNoToken(error);
    expect(error.message).toBe(`GET ${BASE}/consents/v1/c-1 failed: refused Bearer [redacted]`);
    expect((error.cause as Error).message).toBe("refused Bearer [redacted]");
    expect(((error.cause as Error).cause as Error).message).toBe("inner [redacted]");
  });

  it("a 2xx body that is not JSON and quotes the token: the parser's message is redacted", async () => {
    on("get", `${BASE}/consents/v1/c-1`, () => new HttpResponse(`Bearer ${SECRET}`, { status: 200 }));
    const error = (await rejectionOf(client().consents.get("c-1"))) as FdxResponseError;
    expect(error).toBeInstanceOf(FdxResponseError);
    expectNoToken(error);
  });
});

it("a short token is redacted as a whole word only, so a server's words stay readable", async () => {
  on("get", `${BASE}/consents/v1/c-1`, () => HttpResponse.json({ code: "1205", message: "Unauthorized token t" }, { status: 401 }));
  const error = (await rejectionOf(createClient({ baseUrl: BASE, token: "t", maxRetries: 0 }).consents.get("c-1"))) as FdxApiError;
  expect(error.message).toBe("Unauthorized token [redacted]");
});

it("a token with characters a header cannot hold is refused without quoting it", async () => {
  const bad = `${SECRET}\nX-Injected: 1`;
  const error = await rejectionOf(createClient({ baseUrl: BASE, token: bad }).consents.get("c-1"));
  expect(error).toBeInstanceOf(FdxValidationError);
  expectNoToken(error);
});
