// Edge cases of clientCredentials that the main suite leaves out: option
// checks, the token-request timeout, odd token responses and error bodies, and
// errors from a custom fetch that must not carry the secret.
import { inspect } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  clientCredentials,
  FdxApiError,
  FdxConnectionError,
  FdxRateLimitError,
  FdxResponseError,
  FdxTimeoutError,
  FdxValidationError,
} from "../../src/index.js";

const TOKEN_URL = "https://auth.test/token";
const SECRET = "edge-Case-Secret-42";
const base = { tokenUrl: TOKEN_URL, clientId: "id", clientSecret: SECRET };

/** A fetch answering every token request with `respond()`, counting calls. */
function fetchWith(respond: () => Response) {
  const fetch = vi.fn(async (_request: Request) => respond());
  return fetch;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

function expectNoSecret(error: unknown) {
  const e = error as Error;
  for (const view of [e.message, e.stack ?? "", JSON.stringify(e), inspect(e, { depth: 10 })]) expect(view).not.toContain(SECRET);
}

afterEach(() => {
  vi.useRealTimers();
});

describe("option checks", () => {
  it.each([-1, 1.5, Number.NaN])("rejects timeoutMs %s", (timeoutMs) => {
    expect(() => clientCredentials({ ...base, timeoutMs })).toThrow(FdxValidationError);
    try {
      clientCredentials({ ...base, timeoutMs });
    } catch (error) {
      expect((error as FdxValidationError).issues).toEqual([{ path: "timeoutMs", message: "must be an integer >= 0" }]);
    }
  });

  it.each([5, [1, 2], { a: 1 }])("rejects a scope that is neither a string nor strings: %j", (scope) => {
    const call = () => clientCredentials({ ...base, scope: scope as unknown as string });
    expect(call).toThrow(FdxValidationError);
    expect(call).toThrow(/scope/);
  });

  it("rejects a non-http(s) token URL", () => {
    expect(() => clientCredentials({ ...base, tokenUrl: "ftp://auth.test/token" })).toThrow(FdxValidationError);
  });
});

describe("the token request", () => {
  it("times out with FdxTimeoutError when the token endpoint does not answer", async () => {
    // Held on to, as a real fetch holds its request while it runs: a Request's
    // signal follows the caller's through a weak reference, and on Node 24 an
    // unreferenced Request (and the abort with it) can be garbage-collected.
    const inFlight: Request[] = [];
    const fetch = (request: Request) => {
      inFlight.push(request);
      return new Promise<Response>((_, reject) => request.signal.addEventListener("abort", () => reject(request.signal.reason)));
    };
    const error = await rejection(clientCredentials({ ...base, fetch, timeoutMs: 20 })());
    expect(error).toBeInstanceOf(FdxTimeoutError);
    expect((error as Error).message).toContain("timed out after 20 ms");
    expectNoSecret(error);
  });

  it("reads a form-encoded token answer, as some OAuth servers send", async () => {
    const form = { "Content-Type": "application/x-www-form-urlencoded" };
    const fetch = fetchWith(() => new Response("access_token=ab%2Fc&token_type=bearer&expires_in=60", { status: 200, headers: form }));
    expect(await clientCredentials({ ...base, fetch })()).toBe("ab/c");
    // Form fields under another media type are still a form.
    const plain = fetchWith(() => new Response("access_token=xyz", { status: 200 }));
    expect(await clientCredentials({ ...base, fetch: plain })()).toBe("xyz");
  });

  it("a 2xx body that is neither JSON nor a form is an FdxResponseError saying so", async () => {
    const fetch = fetchWith(() => new Response("<html>welcome</html>", { status: 200 }));
    const error = (await rejection(clientCredentials({ ...base, fetch })())) as FdxResponseError;
    expect(error).toBeInstanceOf(FdxResponseError);
    expect(error.issues).toEqual([{ path: "access_token", message: "the token response is not a JSON object" }]);
  });

  it("a JSON array is not a token response either", async () => {
    const fetch = fetchWith(() => Response.json([{ access_token: "abc" }]));
    const error = (await rejection(clientCredentials({ ...base, fetch })())) as FdxResponseError;
    expect(error.issues[0]?.message).toBe("the token response is not a JSON object");
  });

  it("without a usable expires_in, reuses the token for five minutes less the 30 s margin", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = new Date("2024-06-01T00:00:00Z").getTime();
    vi.setSystemTime(start);
    let n = 0;
    const fetch = fetchWith(() => Response.json({ access_token: `at-${++n}`, expires_in: "soon" }));
    const tokens = clientCredentials({ ...base, fetch });
    expect(await tokens()).toBe("at-1");
    vi.setSystemTime(start + 269_000);
    expect(await tokens()).toBe("at-1");
    vi.setSystemTime(start + 271_000);
    expect(await tokens()).toBe("at-2");
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});

describe("failed token requests", () => {
  it("a plain-text error body is the message, as for any API error", async () => {
    const fetch = fetchWith(() => new Response("upstream broke", { status: 502 }));
    const error = (await rejection(clientCredentials({ ...base, fetch })())) as FdxApiError;
    expect(error).toBeInstanceOf(FdxApiError);
    expect(error.status).toBe(502);
    expect(error.code).toBeUndefined();
    expect(error.message).toBe("upstream broke");
    expect(error.body).toBe("upstream broke");
  });

  it("the server's status text is the message when it sends no OAuth error", async () => {
    const fetch = fetchWith(() => Response.json({ error: 42 }, { status: 500, statusText: "Token Service Down" }));
    const error = (await rejection(clientCredentials({ ...base, fetch })())) as FdxApiError;
    expect(error.code).toBeUndefined();
    expect(error.message).toBe("Token Service Down");
    expect(error.body).toEqual({ error: 42 });
  });

  it("429 is an FdxRateLimitError with the server's Retry-After", async () => {
    const fetch = fetchWith(() =>
      Response.json({ error: "slow_down" }, { status: 429, headers: { "Retry-After": "7" } }),
    );
    const error = (await rejection(clientCredentials({ ...base, fetch })())) as FdxRateLimitError;
    expect(error).toBeInstanceOf(FdxRateLimitError);
    expect(error.code).toBe("slow_down");
    expect(error.retryAfterMs).toBe(7000);
  });

  it("a custom fetch rejecting with a non-Error keeps it as the cause and describes it", async () => {
    const error = (await rejection(
      clientCredentials({
        ...base,
        fetch: () => Promise.reject("socket hang up"),
      })(),
    )) as FdxConnectionError;
    expect(error).toBeInstanceOf(FdxConnectionError);
    expect(error.message).toContain("socket hang up");
    expect(error.cause).toBe("socket hang up");
  });

  it("drops a cause object that mentions the secret, and one that cannot be inspected", async () => {
    const quoting = (await rejection(
      clientCredentials({ ...base, fetch: () => Promise.reject({ request: { password: SECRET } }) })(),
    )) as FdxConnectionError;
    expect(quoting).toBeInstanceOf(FdxConnectionError);
    expect(quoting.cause).toBeUndefined();
    expectNoSecret(quoting);

    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const opaque = (await rejection(clientCredentials({ ...base, fetch: () => Promise.reject(circular) })())) as FdxConnectionError;
    expect(opaque).toBeInstanceOf(FdxConnectionError);
    expect(opaque.cause).toBeUndefined();
  });

  it("keeps an Error cause whose chain is free of the secret", async () => {
    const cause = new Error("ECONNRESET", { cause: new Error("read failed") });
    const error = (await rejection(clientCredentials({ ...base, fetch: () => Promise.reject(cause) })())) as FdxConnectionError;
    expect(error.cause).toBe(cause);
    expect(error.message).toContain("ECONNRESET");
  });
});
