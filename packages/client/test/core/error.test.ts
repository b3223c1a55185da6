import { describe, expect, it } from "vitest";
import {
  FdxAbortError,
  FdxApiError,
  FdxConnectionError,
  FdxError,
  FdxErrorCode,
  FdxRateLimitError,
  FdxTimeoutError,
  createClient,
  FdxBadRequestError,
  FdxInternalServerError,
  FdxMaintenanceError,
  FdxMethodNotAllowedError,
  FdxNotFoundError,
  FdxNotImplementedError,
  FdxUnauthorizedError,
  FdxResponseError,
  FdxValidationError,
} from "../../src/index.js";
import { toApiError } from "../../src/core/error.js";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { HttpResponse } from "msw";
import { BASE, TOKEN, rejectionOf, useMsw } from "../support/http.js";

describe("FdxError family", () => {
  it("names each error after its class and keeps the class chain", () => {
    const e = new FdxTimeoutError("timed out");
    expect(e.name).toBe("FdxTimeoutError");
    expect(e).toBeInstanceOf(FdxConnectionError);
    expect(e).toBeInstanceOf(FdxError);
    expect(e).toBeInstanceOf(Error);
    expect(e).not.toBeInstanceOf(FdxApiError);
  });

  it("recognises instances made by another copy of the classes (dual-package hazard)", () => {
    // A structurally separate object carrying the same brand, as the CJS build's instances do.
    const foreign = Object.defineProperty(new Error("x"), Symbol.for("fdxkit.error.kinds"), {
      value: ["FdxRateLimitError", "FdxApiError", "FdxError"],
    });
    expect(foreign instanceof FdxRateLimitError).toBe(true);
    expect(foreign instanceof FdxApiError).toBe(true);
    expect(foreign instanceof FdxConnectionError).toBe(false);
    expect(FdxApiError.is(foreign)).toBe(true);
    expect(FdxApiError.is(new Error("plain"))).toBe(false);
  });

  it("answers instanceof false for primitives, null and undefined", () => {
    for (const value of [null, undefined, "FdxError", 42, Symbol.for("fdxkit.error.kinds")] as unknown[]) {
      expect(value instanceof FdxError).toBe(false);
      expect(FdxError.is(value)).toBe(false);
    }
  });

  it("keeps the fields, in order, and no cause when there is none", () => {
    const e = new FdxRateLimitError({
      status: 429,
      code: "1207",
      message: "slow down",
      debugMessage: undefined,
      body: {},
      headers: {},
      method: "GET",
      url: "https://x.test/",
      interactionId: "iid-1",
      retryAfterMs: 1000,
    });
    expect(Object.keys(e)).toEqual(["name", "status", "code", "debugMessage", "body", "headers", "method", "url", "interactionId", "retryAfterMs"]);
    expect("cause" in e).toBe(false);
    expect(new FdxConnectionError("down", { cause: 1 }).cause).toBe(1);
    expect(Object.keys(e.toJSON())).toEqual([
      "name",
      "message",
      "status",
      "code",
      "debugMessage",
      "body",
      "headers",
      "method",
      "url",
      "interactionId",
      "retryAfterMs",
    ]);
    // `cause` may hold a platform error: never serialised.
    expect(JSON.parse(JSON.stringify(new FdxConnectionError("down", { cause: new Error("inner") })))).toEqual({
      name: "FdxConnectionError",
      message: "down",
      interactionId: undefined,
    });
  });

  it("gives abort errors the platform name AbortError, and a message by default", () => {
    expect(new FdxAbortError().name).toBe("AbortError");
    expect(new FdxAbortError().message).toBe("The request was aborted");
  });

  it("brands each instance with the kinds of its class chain, which another copy of the package reads", () => {
    const brand = Symbol.for("fdxkit.error.kinds");
    const kinds = (e: unknown) => (e as Record<symbol, unknown>)[brand];
    expect(kinds(new FdxTimeoutError("timed out"))).toEqual(["FdxTimeoutError", "FdxConnectionError", "FdxError"]);
    expect(kinds(new FdxAbortError())).toEqual(["FdxAbortError", "FdxError"]);
    // An app's subclass without a kind of its own does not claim its parent's twice.
    class AppError extends FdxConnectionError {}
    expect(kinds(new AppError("down"))).toEqual(["FdxConnectionError", "FdxError"]);
  });

  it("has no cause when the options hold an undefined one (a cause dropped by redaction)", () => {
    const e = new FdxResponseError(200, [{ path: "", message: "body is not valid JSON" }], { cause: undefined, interactionId: "iid-1" });
    expect("cause" in e).toBe(false);
    expect(e.interactionId).toBe("iid-1");
  });

  it("spells the issues out in the message, separated by semicolons", () => {
    const issues = [
      { path: "", message: "body is not valid JSON" },
      { path: "accounts.0.id", message: "must be a string" },
    ];
    expect(new FdxResponseError(200, issues).message).toBe("Unexpected response (HTTP 200): body is not valid JSON; accounts.0.id: must be a string");
    expect(new FdxValidationError(issues.slice(1)).message).toBe("Invalid input: accounts.0.id: must be a string");
  });

  it("takes a body's message only when it is a string, else the status text", () => {
    const request = { method: "GET", url: "https://x.test/", interactionId: undefined, secrets: [] };
    const headers = new Headers({ "content-type": "application/json" });
    const { error } = toApiError(500, "Internal Server Error", headers, JSON.stringify({ code: 500, message: 42 }), request);
    expect(error.message).toBe("Internal Server Error");
    expect(error.code).toBe("500");
  });

  it("holds the FDX contract codes as strings", () => {
    expect(FdxErrorCode).toEqual({
      InvalidInput: "401",
      Unauthorized: "1205",
      MethodNotAllowed: "1206",
      TooManyRequests: "1207",
      InternalServerError: "500",
      VersionNotSupported: "1106",
      ScheduledMaintenance: "503",
      NotFound: "NotFound",
      CustomerNotAuthorized: "602",
    });
  });
});

// The ESM and CJS builds hold separate copies of the error classes; `instanceof`
// must still hold across them (an app may load one copy, a dependency the other).
// This test builds nothing: it runs when the test command has built dist/ first.
const cjsPath = fileURLToPath(new URL("../../dist/index.cjs", import.meta.url));
const esmPath = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
const built = existsSync(cjsPath) && existsSync(esmPath);

type Errors = typeof import("../../src/index.js");

describe.skipIf(!built)("instanceof across the ESM and CJS builds", () => {
  const load = async () => {
    const cjs = createRequire(import.meta.url)(cjsPath) as Errors;
    const esm = (await import(pathToFileURL(esmPath).href)) as Errors;
    return { cjs, esm };
  };

  it("loads two distinct copies of the classes", async () => {
    const { cjs, esm } = await load();
    expect(cjs.FdxError).not.toBe(esm.FdxError);
  });

  it("an error from the CJS build is an instance of the ESM classes, and back", async () => {
    const { cjs, esm } = await load();
    const init = {
      status: 429,
      code: "1207",
      message: "Too Many Requests",
      debugMessage: undefined,
      body: {},
      headers: {},
      method: "GET",
      url: "https://x.test/",
    };
    const fromCjs = new cjs.FdxRateLimitError({ ...init, retryAfterMs: 1000 });
    const fromEsm = new esm.FdxTimeoutError("timed out");
    expect(fromCjs).toBeInstanceOf(esm.FdxRateLimitError);
    expect(fromCjs).toBeInstanceOf(esm.FdxApiError);
    expect(fromCjs).toBeInstanceOf(esm.FdxError);
    expect(fromCjs).not.toBeInstanceOf(esm.FdxConnectionError);
    expect(fromEsm).toBeInstanceOf(cjs.FdxTimeoutError);
    expect(fromEsm).toBeInstanceOf(cjs.FdxConnectionError);
    expect(fromEsm).not.toBeInstanceOf(cjs.FdxApiError);
    expect(esm.FdxApiError.is(fromCjs)).toBe(true);
  });

  it("a minified bundle keeps each status class's name, and its instanceof across copies", async () => {
    // Resolved from the repository's root, where the bundler is a dev dependency.
    const { build } = (await import(
      createRequire(fileURLToPath(new URL("../../../../package.json", import.meta.url))).resolve("esbuild")
    )) as typeof import("esbuild");
    const entry = `import * as fdx from ${JSON.stringify(esmPath)};
      const init = { status: 404, code: "1108", message: "m", debugMessage: undefined, body: {}, headers: {}, method: "GET", url: "https://x.test/" };
      export const errors = [fdx.FdxBadRequestError, fdx.FdxUnauthorizedError, fdx.FdxNotFoundError, fdx.FdxMethodNotAllowedError,
        fdx.FdxRateLimitError, fdx.FdxInternalServerError, fdx.FdxNotImplementedError, fdx.FdxMaintenanceError].map((C) => new C(init));`;
    const out = await build({
      stdin: { contents: entry, resolveDir: process.cwd() },
      bundle: true,
      minify: true,
      format: "esm",
      write: false,
      logLevel: "silent",
    });
    const text = out.outputFiles[0]!.text;
    // The minifier renamed the classes: only the kinds carry their names.
    expect(text).not.toMatch(/class FdxNotFoundError/);
    const { errors } = (await import(`data:text/javascript;base64,${Buffer.from(text).toString("base64")}`)) as { errors: Error[] };
    const { esm } = await load();
    expect(errors.map((e) => e.name)).toEqual([
      "FdxBadRequestError",
      "FdxUnauthorizedError",
      "FdxNotFoundError",
      "FdxMethodNotAllowedError",
      "FdxRateLimitError",
      "FdxInternalServerError",
      "FdxNotImplementedError",
      "FdxMaintenanceError",
    ]);
    expect(errors[2]).toBeInstanceOf(esm.FdxNotFoundError);
    expect(errors[2]).toBeInstanceOf(esm.FdxApiError);
    expect(errors[2]).not.toBeInstanceOf(esm.FdxBadRequestError);
    expect(errors[4]).toBeInstanceOf(esm.FdxRateLimitError);
  });

  it("errors the CJS client throws are recognised by the ESM classes", async () => {
    const { cjs, esm } = await load();
    const client = cjs.createClient({ baseUrl: "https://x.test", token: "t" });
    const error = await client.subscriptions.get("..").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(esm.FdxValidationError);
  });
});

const { on } = useMsw();
// No retries: each row is about the mapping of one answer.
const client = createClient({ baseUrl: `${BASE}/fdx/`, token: TOKEN, maxRetries: 0 });
const SUBS = `${BASE}/fdx/notifications/v1/subscriptions`;
const MAINT = `${BASE}/fdx/notifications/v1/maintenance/m-1`;

const input = { category: "MAINTENANCE", type: "SERVICE", callbackUrl: "https://me.test/h" } as const;

// Every row of service-spec §7, on a call it applies to.
const rows = [
  { status: 400, code: "401", message: "Invalid Input", cls: FdxBadRequestError, url: SUBS, method: "POST" },
  { status: 401, code: "1205", message: "Unauthorized", cls: FdxUnauthorizedError, url: SUBS, method: "POST" },
  { status: 405, code: "1206", message: "Method Not Allowed", cls: FdxMethodNotAllowedError, url: SUBS, method: "POST" },
  { status: 429, code: "1207", message: "Too Many Requests", cls: FdxRateLimitError, url: SUBS, method: "POST" },
  { status: 500, code: "500", message: "Internal server error", cls: FdxInternalServerError, url: SUBS, method: "POST" },
  {
    status: 501,
    code: "1106",
    message: "FdxVersion not supported or not implemented",
    cls: FdxNotImplementedError,
    url: SUBS,
    method: "POST",
  },
  { status: 503, code: "503", message: "Scheduled Maintenance", cls: FdxMaintenanceError, url: SUBS, method: "POST" },
  { status: 404, code: "NotFound", message: "resource not found", cls: FdxNotFoundError, url: MAINT, method: "GET" },
] as const;

describe("service-spec §7 rows", () => {
  it.each(rows)("$status / $code → $cls.name with every field", async (row) => {
    const body = { code: row.code, message: row.message, debugMessage: `debug ${row.status}` };
    const send = row.method === "POST" ? () => client.subscriptions.create(input) : () => client.maintenance.get("m-1");
    on(row.method === "POST" ? "post" : "get", row.url, () => HttpResponse.json(body, { status: row.status, headers: { "x-request-id": "rid-1" } }));
    const error = await rejectionOf(send());
    expect(error).toBeInstanceOf(row.cls);
    expect(error).toBeInstanceOf(FdxApiError);
    const e = error as FdxApiError;
    expect(e.name).toBe(row.cls.name);
    expect(e.status).toBe(row.status);
    expect(e.code).toBe(row.code);
    expect(e.message).toBe(row.message);
    expect(e.debugMessage).toBe(`debug ${row.status}`);
    expect(e.body).toEqual(body);
    expect(e.headers["x-request-id"]).toBe("rid-1");
    expect(e.method).toBe(row.method);
    expect(e.url).toBe(row.url);
  });

  it('normalises the maintenance 400\'s integer code (401 → "401") and has no debugMessage', async () => {
    on("get", MAINT, () => HttpResponse.json({ code: 401, message: "Invalid input" }, { status: 400 }));
    const e = (await rejectionOf(client.maintenance.get("m-1"))) as FdxBadRequestError;
    expect(e).toBeInstanceOf(FdxBadRequestError);
    expect(e.code).toBe("401");
    expect(e.code).toBe(FdxErrorCode.InvalidInput);
    expect(e.message).toBe("Invalid input");
    expect(e.debugMessage).toBeUndefined();
    expect(e.body).toEqual({ code: 401, message: "Invalid input" });
  });

  it("maps the maintenance plain-text 405 with no code", async () => {
    on("get", MAINT, () => HttpResponse.text("Method Not Allowed", { status: 405 }));
    const e = (await rejectionOf(client.maintenance.get("m-1"))) as FdxMethodNotAllowedError;
    expect(e).toBeInstanceOf(FdxMethodNotAllowedError);
    expect(e.code).toBeUndefined();
    expect(e.message).toBe("Method Not Allowed");
    expect(e.body).toBe("Method Not Allowed");
  });

  it.each(["Empty Update Request Body", "Invalid Callback URL", "Invalid Callback Email", "Invalid Effective Date"])(
    "exposes the PATCH debugMessage %s on an FdxBadRequestError",
    async (debugMessage) => {
      on("patch", `${SUBS}/s-1`, () => HttpResponse.json({ code: "401", message: "Invalid Input", debugMessage }, { status: 400 }));
      const e = (await rejectionOf(client.subscriptions.update("s-1", { callbackEmail: "a@me.test" }))) as FdxApiError;
      expect(e).toBeInstanceOf(FdxBadRequestError);
      expect(e.debugMessage).toBe(debugMessage);
      expect(e.code).toBe(FdxErrorCode.InvalidInput);
      expect(e.method).toBe("PATCH");
    },
  );

  it("maps DELETE of an unknown id (400, subscription id was not found)", async () => {
    on("delete", `${SUBS}/gone`, () =>
      HttpResponse.json({ code: "401", message: "Invalid Input", debugMessage: "subscription id was not found" }, { status: 400 }),
    );
    const e = (await rejectionOf(client.subscriptions.delete("gone"))) as FdxBadRequestError;
    expect(e).toBeInstanceOf(FdxBadRequestError);
    expect(e.method).toBe("DELETE");
    expect(e.url).toBe(`${SUBS}/gone`);
  });
});

describe("bodies no spec describes", () => {
  it("an HTML page from a proxy gives a short message from the status text, not the markup", async () => {
    const page = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>${"<p>nginx</p>".repeat(200)}</body></html>`;
    on("get", MAINT, () => HttpResponse.html(page, { status: 502, statusText: "Bad Gateway" }));
    const e = (await rejectionOf(client.maintenance.get("m-1"))) as FdxApiError;
    expect(e).toBeInstanceOf(FdxApiError);
    expect(e.status).toBe(502);
    expect(e.code).toBeUndefined();
    expect(e.message).toBe("Bad Gateway");
    expect(e.message).not.toContain("<");
    expect(e.body).toBe(page);
  });

  it("markup is left out even when it is not served as HTML", async () => {
    on("get", MAINT, () => HttpResponse.text("<h1>Bad Gateway</h1>", { status: 502, statusText: "Bad Gateway" }));
    const e = (await rejectionOf(client.maintenance.get("m-1"))) as FdxApiError;
    expect(e.message).toBe("Bad Gateway");
    expect(e.body).toBe("<h1>Bad Gateway</h1>");
  });

  it("a body served as HTML or XML gives the status text, even when it does not start with markup", async () => {
    for (const type of ["text/html; charset=utf-8", "application/xml"]) {
      on("get", MAINT, () => new HttpResponse("Upstream timed out", { status: 502, statusText: "Bad Gateway", headers: { "content-type": type } }));
      const e = (await rejectionOf(client.maintenance.get("m-1"))) as FdxApiError;
      expect(e.message).toBe("Bad Gateway");
    }
  });

  it("a plain-text body is the message, without the whitespace around it", async () => {
    on("get", MAINT, () => HttpResponse.text("  \n Upstream timed out \n", { status: 502, statusText: "Bad Gateway" }));
    const e = (await rejectionOf(client.maintenance.get("m-1"))) as FdxApiError;
    expect(e.message).toBe("Upstream timed out");
  });

  it("an empty body gives the status text", async () => {
    on("get", MAINT, () => new HttpResponse(null, { status: 503, statusText: "Service Unavailable" }));
    const e = (await rejectionOf(client.maintenance.get("m-1", { maxRetries: 0 }))) as FdxMaintenanceError;
    expect(e).toBeInstanceOf(FdxMaintenanceError);
    expect(e.message).toBe("Service Unavailable");
    expect(e.code).toBeUndefined();
  });

  it("reads a huge error body only up to its cap, and stops the stream", async () => {
    let pulled = 0;
    let cancelled = false;
    const chunk = new TextEncoder().encode("y".repeat(16 * 1024));
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const huge = createClient({ baseUrl: `${BASE}/fdx`, token: TOKEN, maxRetries: 0, fetch: async () => new Response(stream, { status: 500 }) });
    const e = (await rejectionOf(huge.maintenance.get("m-1"))) as FdxApiError;
    expect(e).toBeInstanceOf(FdxInternalServerError);
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(10);
    expect(e.body).toBe("y".repeat(64 * 1024));
    expect(e.message).toBe(`${"y".repeat(199)}…`);
  });

  it("without a status text (HTTP/2) the message names the status", async () => {
    const http2 = createClient({ baseUrl: `${BASE}/fdx`, token: TOKEN, maxRetries: 0, fetch: async () => new Response(null, { status: 503 }) });
    const e = (await rejectionOf(http2.maintenance.get("m-1"))) as FdxMaintenanceError;
    expect(e).toBeInstanceOf(FdxMaintenanceError);
    expect(e.message).toBe("HTTP 503");
  });

  it("a long plain-text body is cut to 200 characters, its ellipsis included", async () => {
    on("get", MAINT, () => HttpResponse.text("x".repeat(1000), { status: 500 }));
    const e = (await rejectionOf(client.maintenance.get("m-1", { maxRetries: 0 }))) as FdxApiError;
    expect(e).toBeInstanceOf(FdxInternalServerError);
    // 200 characters in all, the ellipsis included.
    expect(e.message).toBe(`${"x".repeat(199)}…`);
  });

  it("a status without a subclass is a plain FdxApiError", async () => {
    on("get", MAINT, () => HttpResponse.json({ code: "9999", message: "Forbidden here" }, { status: 403 }));
    const e = (await rejectionOf(client.maintenance.get("m-1"))) as FdxApiError;
    expect(e.constructor).toBe(FdxApiError);
    expect(e.code).toBe("9999");
  });

  it("lets apps branch on FdxErrorCode", async () => {
    on("post", SUBS, () => HttpResponse.json({ code: "1205", message: "Unauthorized" }, { status: 401 }));
    const e = await rejectionOf(client.subscriptions.create(input));
    expect(e instanceof FdxApiError && e.code === FdxErrorCode.Unauthorized).toBe(true);
  });
});

describe("FdxRateLimitError", () => {
  it("carries Retry-After as retryAfterMs", async () => {
    on("post", SUBS, () => HttpResponse.json({ code: "1207", message: "Too Many Requests" }, { status: 429, headers: { "Retry-After": "120" } }));
    const e = (await rejectionOf(client.subscriptions.create(input))) as FdxRateLimitError;
    expect(e).toBeInstanceOf(FdxRateLimitError);
    expect(e.retryAfterMs).toBe(120_000);
    expect(e.code).toBe(FdxErrorCode.TooManyRequests);
  });

  it("has retryAfterMs undefined without the header", async () => {
    on("post", SUBS, () => HttpResponse.json({ code: "1207", message: "Too Many Requests" }, { status: 429 }));
    const e = (await rejectionOf(client.subscriptions.create(input))) as FdxRateLimitError;
    expect(e.retryAfterMs).toBeUndefined();
  });
});
