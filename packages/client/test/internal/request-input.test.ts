// What the request path and createClient refuse before anything is sent, and
// the issue (path and message) each refusal names; per-call headers merged
// without case; JSON calls answered with a redirect.
import { HttpResponse } from "msw";
import { describe, expect, it, vi } from "vitest";
import { createClient, FdxError, FdxLinkError, FdxValidationError, type ClientOptions } from "../../src/index.js";
import { BASE, TOKEN, rejectionOf, useMsw } from "../support/http.js";

const { on, seen } = useMsw();
const CONSENT = `${BASE}/consents/v1/c-1`;
const client = (options: Partial<ClientOptions> = {}) => createClient({ baseUrl: BASE, token: TOKEN, maxRetries: 0, ...options });
const issuesOf = async (call: Promise<unknown>) => {
  const error = await rejectionOf(call);
  expect(error).toBeInstanceOf(FdxValidationError);
  return (error as FdxValidationError).issues;
};

describe("per-call headers", () => {
  it("refuses a header name or value the platform would refuse, naming the header, and sends nothing", async () => {
    expect(await issuesOf(client().consents.get("c-1", { headers: { "Bad Name": "x", "x-ok": "1", "x-value": "a\r\nb" } }))).toEqual([
      { path: "headers.Bad Name", message: "is not a valid HTTP header" },
      { path: "headers.x-value", message: "is not a valid HTTP header" },
    ]);
    expect(seen).toHaveLength(0);
  });

  it("merges them by lower-case name, and never lets one replace the bearer token, whatever its case", async () => {
    on("get", CONSENT, () => HttpResponse.json({ id: "c-1" }));
    await client().consents.get("c-1", { headers: { "X-Trace": "t-1", AUTHORIZATION: "Bearer other", ACCEPT: "application/fdx+json" } });
    expect(seen[0]?.headers).toMatchObject({ "x-trace": "t-1", authorization: `Bearer ${TOKEN}`, accept: "application/fdx+json" });
  });

  it("refuses a header value that is not a string, as the platform would stringify it", async () => {
    expect(await issuesOf(client().consents.get("c-1", { headers: { "x-count": 5, "x-none": null } as never }))).toEqual([
      { path: "headers.x-count", message: "is not a valid HTTP header" },
      { path: "headers.x-none", message: "is not a valid HTTP header" },
    ]);
    expect(seen).toHaveLength(0);
  });

  it("keeps the caller's Authorization header from the onRequest hook too", async () => {
    on("get", CONSENT, () => HttpResponse.json({ id: "c-1" }));
    const names: string[] = [];
    const onRequest = (e: { headers: Headers }) => void names.push(...e.headers.keys());
    await client({ hooks: { onRequest } }).consents.get("c-1", { headers: { Authorization: "Bearer other", "X-Trace": "t-1" }, interactionId: "iid" });
    expect(names.sort()).toEqual(["accept", "x-fapi-interaction-id", "x-trace"]);
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("takes no other header for the interaction id", async () => {
    on("get", CONSENT, () => HttpResponse.json({ id: "c-1" }));
    await client({ interactionIds: false }).consents.get("c-1", { headers: { "X-Trace": "t-1" } });
    await client().consents.get("c-1", { headers: { "X-Trace": "t-2" } });
    expect(seen[0]?.headers["x-fapi-interaction-id"]).toBeUndefined();
    expect(seen[1]?.headers["x-fapi-interaction-id"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("takes the interaction id from a header in any case, and refuses an empty one", async () => {
    on("get", CONSENT, () => HttpResponse.json({ id: "c-1" }));
    await client().consents.get("c-1", { headers: { "X-FAPI-Interaction-Id": "from-header" } });
    expect(seen[0]?.headers["x-fapi-interaction-id"]).toBe("from-header");
    expect(await issuesOf(client().consents.get("c-1", { interactionId: "" }))).toEqual([
      { path: "interactionId", message: "must be a non-empty string valid in an HTTP header" },
    ]);
  });

  it("names timeoutMs and maxRetries of one call", async () => {
    expect(await issuesOf(client().consents.get("c-1", { timeoutMs: -1, maxRetries: 0.5 }))).toEqual([
      { path: "timeoutMs", message: "must be an integer >= 0" },
      { path: "maxRetries", message: "must be an integer >= 0" },
    ]);
    expect(seen).toHaveLength(0);
  });
});

describe("createClient", () => {
  const issues = (options: Record<string, unknown>) => {
    try {
      createClient({ baseUrl: BASE, token: TOKEN, ...options } as ClientOptions);
    } catch (error) {
      expect(error).toBeInstanceOf(FdxValidationError);
      return (error as FdxValidationError).issues;
    }
    throw new Error("accepted");
  };

  it.each([
    [{ token: "" }, [{ path: "token", message: "must be a non-empty string or a function returning one" }]],
    [{ token: 42 }, [{ path: "token", message: "must be a non-empty string or a function returning one" }]],
    [{ interactionIds: "yes" }, [{ path: "interactionIds", message: "must be a boolean" }]],
    [{ hooks: null }, [{ path: "hooks", message: "must be an object" }]],
    [{ hooks: "log" }, [{ path: "hooks", message: "must be an object" }]],
    [{ maxResponseBytes: 0 }, [{ path: "maxResponseBytes", message: "must be an integer >= 1" }]],
    [{ productsUrl: "https://x.test/p?q=1" }, [{ path: "productsUrl", message: "must be an absolute http(s) URL without query, fragment or credentials" }]],
    [{ productsUrl: 7 }, [{ path: "productsUrl", message: "must be an absolute http(s) URL without query, fragment or credentials" }]],
    // A URL object is no string, though it would parse.
    [
      { productsUrl: new URL("https://x.test/p") },
      [{ path: "productsUrl", message: "must be an absolute http(s) URL without query, fragment or credentials" }],
    ],
    [{ maxDownloadBytes: 0.5 }, [{ path: "maxDownloadBytes", message: "must be an integer >= 1" }]],
  ])("refuses %j, naming the option", (options, expected) => {
    expect(issues(options)).toEqual(expected);
  });

  it("takes maxResponseBytes 1, a token function, and hooks without any hook", () => {
    expect(() => createClient({ baseUrl: BASE, token: () => TOKEN, maxResponseBytes: 1, hooks: {} })).not.toThrow();
  });
});

describe("a JSON call answered with a redirect", () => {
  it.each([300, 301, 399])("is an FdxLinkError for %i, naming the status and the Location", async (status) => {
    on("get", CONSENT, () => new HttpResponse(null, { status, headers: { location: "https://elsewhere.test/x" } }));
    const error = await rejectionOf(client().consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxLinkError);
    expect((error as FdxLinkError).message).toBe(`GET ${CONSENT} answered ${status}: calls that answer JSON follow no redirect`);
    expect((error as FdxLinkError).href).toBe("https://elsewhere.test/x");
  });

  it("names the URL it called when the redirect has no Location", async () => {
    on("get", CONSENT, () => new HttpResponse(null, { status: 307 }));
    expect(await rejectionOf(client().consents.get("c-1"))).toMatchObject({ href: CONSENT });
  });

  it("but 400 is an API error, not a redirect", async () => {
    on("get", CONSENT, () => HttpResponse.json({ code: "400", message: "bad" }, { status: 400 }));
    expect(await rejectionOf(client().consents.get("c-1"))).not.toBeInstanceOf(FdxLinkError);
  });
});

describe('a JSON call answered with an opaque redirect (a browser\'s fetch with redirect: "manual")', () => {
  it("is an FdxLinkError naming the URL it called: the Location is hidden", async () => {
    // What a browser hands back: no status, no headers, no body.
    const opaque = { type: "opaqueredirect", status: 0, statusText: "", ok: false, url: "", headers: new Headers(), body: null };
    const fetch = async () => opaque as unknown as Response;
    const error = await rejectionOf(createClient({ baseUrl: BASE, token: TOKEN, fetch }).consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxLinkError);
    expect((error as FdxLinkError).message).toBe(`GET ${CONSENT} answered a redirect: calls that answer JSON follow no redirect`);
    expect((error as FdxLinkError).href).toBe(CONSENT);
  });
});

describe("hooks", () => {
  it("an onRetry hook that throws ends the call with an FdxError naming it, the hook's error as cause", async () => {
    on("get", CONSENT, () => HttpResponse.json({ code: "503" }, { status: 503, headers: { "Retry-After": "0" } }));
    const thrown = new Error("logger down");
    const error = await rejectionOf(
      client({
        maxRetries: 1,
        hooks: {
          onRetry: vi.fn(() => {
            throw thrown;
          }),
        },
      }).consents.get("c-1"),
    );
    expect(error).toBeInstanceOf(FdxError);
    expect((error as FdxError).message).toBe("The onRetry hook threw (see cause)");
    expect((error as FdxError).code).toBe("hook_failed");
    expect((error as FdxError).cause).toBe(thrown);
    expect(seen).toHaveLength(1);
  });

  it("onResponse sees the attempt's duration: not negative, and within the call's own", async () => {
    on("get", CONSENT, () => HttpResponse.json({ id: "c-1" }));
    const durations: number[] = [];
    const started = performance.now();
    await client({ hooks: { onResponse: (e) => void durations.push(e.durationMs) } }).consents.get("c-1");
    const elapsed = performance.now() - started;
    expect(durations).toHaveLength(1);
    expect(durations[0]).toBeGreaterThanOrEqual(0);
    expect(durations[0]).toBeLessThanOrEqual(elapsed);
  });
});
