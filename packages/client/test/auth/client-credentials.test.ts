import { inspect } from "node:util";
import { delay, HttpResponse } from "msw";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  clientCredentials,
  createClient,
  FdxApiError,
  FdxBadRequestError,
  FdxConnectionError,
  FdxError,
  FdxRateLimitError,
  FdxResponseError,
  FdxTimeoutError,
  FdxUnauthorizedError,
  FdxValidationError,
} from "../../src/index.js";
import { BASE, refusedPort, rejectionOf, useMsw } from "../support/http.js";

const { on, seen } = useMsw();
const TOKEN_URL = "https://auth.test/oauth2/token";
const SECRET = "s3cr:t/+ü%-Very-Secret";
// RFC 6749 §2.3.1: each part form-urlencoded, then base64("id:secret").
const EXPECTED_BASIC = Buffer.from("my+client:s3cr%3At%2F%2B%C3%BC%25-Very-Secret").toString("base64");

const options = { tokenUrl: TOKEN_URL, clientId: "my client", clientSecret: SECRET, scope: "notifications consents" };
// Made before msw listens: the fetch must be looked up at call time.
const early = clientCredentials(options);

let issued = 0;
const grant = (expiresIn?: number) => () => HttpResponse.json({ access_token: `at-${++issued}`, token_type: "Bearer", expires_in: expiresIn });

afterEach(() => {
  vi.useRealTimers();
  issued = 0;
});

function expectNoSecret(error: unknown) {
  expect(error).toBeInstanceOf(FdxError);
  const e = error as Error;
  for (const view of [e.message, e.stack ?? "", String(e), JSON.stringify(e), inspect(e, { depth: 10 })]) {
    expect(view).not.toContain(SECRET);
    expect(view).not.toContain("Very-Secret");
    expect(view).not.toContain(EXPECTED_BASIC);
  }
}

describe("the token request", () => {
  it("POSTs the client-credentials grant with HTTP Basic client authentication", async () => {
    on("post", TOKEN_URL, grant(3600));
    await expect(early()).resolves.toBe("at-1");
    expect(seen).toHaveLength(1);
    const [req] = seen;
    expect(req?.method).toBe("POST");
    expect(req?.headers.authorization).toBe(`Basic ${EXPECTED_BASIC}`);
    expect(req?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(req?.body).toBe("grant_type=client_credentials&scope=notifications+consents");
  });

  it("joins a scope array with spaces and sends no scope when none is given", async () => {
    on("post", TOKEN_URL, grant(3600));
    await clientCredentials({ ...options, scope: ["a", "b"] })();
    await clientCredentials({ tokenUrl: TOKEN_URL, clientId: "id", clientSecret: "pw" })();
    expect(seen.map((s) => s.body)).toEqual(["grant_type=client_credentials&scope=a+b", "grant_type=client_credentials"]);
  });

  it("uses a custom fetch when given one", async () => {
    const urls: string[] = [];
    const tokens = clientCredentials({
      ...options,
      fetch: async (request: Request) => {
        urls.push(request.url);
        return Response.json({ access_token: "custom", expires_in: 60 });
      },
    });
    await expect(tokens()).resolves.toBe("custom");
    expect(urls).toEqual([TOKEN_URL]);
  });
});

describe("caching", () => {
  it("reuses the token until shortly before expires_in, then fetches a new one", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = new Date("2024-06-01T00:00:00Z").getTime();
    vi.setSystemTime(start);
    on("post", TOKEN_URL, grant(3600));
    const tokens = clientCredentials(options);
    expect(await tokens()).toBe("at-1");
    vi.setSystemTime(start + 3_569_000); // 31 s before expiry: still good
    expect(await tokens()).toBe("at-1");
    vi.setSystemTime(start + 3_569_999);
    expect(await tokens()).toBe("at-1");
    vi.setSystemTime(start + 3_570_000); // exactly 30 s before expiry: renewed
    expect(await tokens()).toBe("at-2");
    expect(seen).toHaveLength(2);
  });

  it("refreshes a short-lived token at 90 % of its lifetime", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.now();
    on("post", TOKEN_URL, grant(10));
    const tokens = clientCredentials(options);
    await tokens();
    vi.setSystemTime(start + 8_500);
    expect(await tokens()).toBe("at-1");
    vi.setSystemTime(start + 9_100);
    expect(await tokens()).toBe("at-2");
  });

  it("makes concurrent callers share one token request", async () => {
    on("post", TOKEN_URL, async () => {
      await delay(30);
      return grant(3600)();
    });
    const tokens = clientCredentials(options);
    const all = await Promise.all(Array.from({ length: 8 }, () => tokens()));
    expect(new Set(all)).toEqual(new Set(["at-1"]));
    expect(seen).toHaveLength(1);
  });

  it("does not cache a failure: the next call asks again", async () => {
    on("post", TOKEN_URL, (_, n) => (n === 1 ? HttpResponse.json({ error: "temporarily_unavailable" }, { status: 503 }) : grant(3600)()));
    const tokens = clientCredentials(options);
    await expect(tokens()).rejects.toBeInstanceOf(FdxApiError);
    await expect(tokens()).resolves.toBe("at-1");
  });
});

describe("failures are typed and secret-free", () => {
  it.each([
    [400, FdxBadRequestError, "invalid_client", "Client authentication failed"],
    [401, FdxUnauthorizedError, "invalid_client", "Unknown client"],
    [400, FdxBadRequestError, "invalid_scope", undefined],
  ] as const)("%i %s → code and message from error/error_description", async (status, cls, code, description) => {
    on("post", TOKEN_URL, () => HttpResponse.json({ error: code, error_description: description }, { status }));
    const error = (await rejectionOf(clientCredentials(options)())) as FdxApiError;
    expect(error).toBeInstanceOf(cls);
    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    expect(error.message).toBe(description ?? code);
    expect(error.url).toBe(TOKEN_URL);
    expect(error.method).toBe("POST");
    expectNoSecret(error);
  });

  it.each([
    ["an FDX message wins over error_description", { message: "Client unknown to the gateway" }, "invalid_client", "Client unknown to the gateway"],
    ["an empty FDX message does not", { message: "" }, "invalid_client", "Unknown client"],
    ["an FDX code wins over error", { code: "1205", message: "Unauthorized" }, "1205", "Unauthorized"],
    ["a numeric FDX code reads as a string", { code: 1205 }, "1205", "Unknown client"],
    ["a code of another kind is no code", { code: { id: 1205 } }, undefined, "Unknown client"],
  ] as const)("an OAuth error body with FDX fields: %s", async (_, fdx, code, message) => {
    on("post", TOKEN_URL, () => HttpResponse.json({ error: "invalid_client", error_description: "Unknown client", ...fdx }, { status: 401 }));
    const error = (await rejectionOf(clientCredentials(options)())) as FdxApiError;
    expect(error).toBeInstanceOf(FdxUnauthorizedError);
    expect({ status: error.status, code: error.code, message: error.message }).toEqual({ status: 401, code, message });
  });

  it("redacts a secret the server echoes back", async () => {
    on("post", TOKEN_URL, async ({ headers }) =>
      HttpResponse.json({ error: "invalid_client", error_description: `bad secret ${SECRET} in ${headers.get("authorization")}` }, { status: 401 }),
    );
    const error = await rejectionOf(clientCredentials(options)());
    expect(error).toBeInstanceOf(FdxUnauthorizedError);
    expectNoSecret(error);
  });

  it("a refused connection is an FdxConnectionError without the secret", async () => {
    const port = await refusedPort();
    const error = await rejectionOf(clientCredentials({ ...options, tokenUrl: `http://127.0.0.1:${port}/token` })());
    expect(error).toBeInstanceOf(FdxConnectionError);
    expectNoSecret(error);
  });

  it("a custom fetch whose error quotes the request: the cause is kept, redacted", async () => {
    const tokens = clientCredentials({
      ...options,
      fetch: async (request: Request) => {
        throw new Error(`cannot send ${request.headers.get("authorization")} with ${await request.text()}`);
      },
    });
    const error = (await rejectionOf(tokens())) as FdxConnectionError;
    expect(error).toBeInstanceOf(FdxConnectionError);
    expect(error.cause).toBeInstanceOf(Error);
    expect((error.cause as Error).message).toBe("cannot send Basic [redacted] with grant_type=client_credentials&scope=notifications+consents");
    expectNoSecret(error);
  });

  it("a 200 without access_token is an FdxResponseError", async () => {
    on("post", TOKEN_URL, () => HttpResponse.json({ token_type: "Bearer" }));
    const error = (await rejectionOf(clientCredentials(options)())) as FdxResponseError;
    expect(error).toBeInstanceOf(FdxResponseError);
    expect(error.issues[0]?.path).toBe("access_token");
  });

  it("rejects unusable options up front without echoing the secret", () => {
    let error: unknown;
    try {
      clientCredentials({ tokenUrl: "/token", clientId: "", clientSecret: SECRET });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues.map((i) => i.path)).toEqual(["tokenUrl", "clientId"]);
    expectNoSecret(error);
  });
});

describe("with createClient", () => {
  it("authenticates every attempt with the cached access token", async () => {
    on("post", TOKEN_URL, grant(3600));
    on("get", `${BASE}/consents/v1/c-1`, (_, n) =>
      n === 1
        ? HttpResponse.json({ code: "503", message: "Scheduled Maintenance" }, { status: 503, headers: { "Retry-After": "0" } })
        : HttpResponse.json({ id: "c-1", status: "ACTIVE" }),
    );
    const tokens = clientCredentials(options);
    const provider = vi.fn(tokens);
    const client = createClient({ baseUrl: BASE, token: provider });
    await expect(client.consents.get("c-1")).resolves.toEqual({ id: "c-1", status: "ACTIVE" });
    expect(provider).toHaveBeenCalledTimes(2); // once per attempt
    const api = seen.filter((s) => s.url.startsWith(BASE));
    expect(api.map((s) => s.headers.authorization)).toEqual(["Bearer at-1", "Bearer at-1"]);
    expect(seen.filter((s) => s.url === TOKEN_URL)).toHaveLength(1);
  });

  it("a failing token request rejects the call with the token error and sends no API request", async () => {
    on("post", TOKEN_URL, () => HttpResponse.json({ error: "invalid_client" }, { status: 401 }));
    const client = createClient({ baseUrl: BASE, token: clientCredentials(options) });
    const error = await rejectionOf(client.consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxUnauthorizedError);
    expect((error as FdxUnauthorizedError).url).toBe(TOKEN_URL);
    expect(seen.filter((s) => s.url.startsWith(BASE))).toHaveLength(0);
  });
});

describe("a token endpoint that echoes the credentials", () => {
  it("a JSON-escaped secret (slashes too) and the Basic credential in a header are redacted", async () => {
    const secret = "s3cr/et+1";
    const basic = btoa(`my+client:${encodeURIComponent(secret).replace(/%20/g, "+")}`);
    on(
      "post",
      TOKEN_URL,
      (request) =>
        new HttpResponse(`{"error":"invalid_client","error_description":"bad secret s3cr\\/et+1 for ${request.headers.get("authorization")}"}`, {
          status: 401,
          headers: { "content-type": "application/json", "x-echo": `${request.headers.get("authorization")}` },
        }),
    );
    const error = (await rejectionOf(clientCredentials({ ...options, clientSecret: secret })())) as FdxUnauthorizedError;
    expect(error).toBeInstanceOf(FdxUnauthorizedError);
    expect(error.message).toBe("bad secret [redacted] for Basic [redacted]");
    expect(error.headers["x-echo"]).toBe("Basic [redacted]");
    for (const view of [error.message, error.stack ?? "", String(error), JSON.stringify(error), inspect(error, { depth: 10 })]) {
      expect(view).not.toContain(secret);
      expect(view).not.toContain("s3cr\\/et+1");
      expect(view).not.toContain(basic);
    }
  });
});

describe("edge cases: options, timeouts, odd answers, custom fetch errors", () => {
  // Edge cases of clientCredentials that the main suite leaves out: option
  // checks, the token-request timeout, odd token responses and error bodies, and
  // errors from a custom fetch that must not carry the secret.
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
      const fetch = fetchWith(() => Response.json({ error: "slow_down" }, { status: 429, headers: { "Retry-After": "7" } }));
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
      const quoting = (await rejection(clientCredentials({ ...base, fetch: () => Promise.reject({ request: { password: SECRET } }) })())) as FdxConnectionError;
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
});

describe("a rejected token", () => {
  it("is dropped from the cache: a 401 through the client fetches a new token and repeats the call once", async () => {
    on("post", TOKEN_URL, grant(3600));
    on("get", `${BASE}/consents/v1/c-1`, (request) =>
      request.headers.get("authorization") === "Bearer at-2"
        ? HttpResponse.json({ id: "c-1", status: "ACTIVE" })
        : HttpResponse.json({ code: "1205", message: "Unauthorized" }, { status: 401 }),
    );
    const client = createClient({ baseUrl: BASE, token: clientCredentials(options), maxRetries: 0 });
    await expect(client.consents.get("c-1")).resolves.toEqual({ id: "c-1", status: "ACTIVE" });
    expect(seen.map((s) => `${s.method} ${s.headers.authorization}`)).toEqual([
      `POST Basic ${EXPECTED_BASIC}`,
      "GET Bearer at-1",
      `POST Basic ${EXPECTED_BASIC}`,
      "GET Bearer at-2",
    ]);
  });

  it("a rejection of an older token keeps the newer cached one", async () => {
    on("post", TOKEN_URL, grant(3600));
    const tokens = clientCredentials(options);
    await expect(tokens()).resolves.toBe("at-1");
    await expect(tokens({ rejected: "at-1", signal: undefined })).resolves.toBe("at-2");
    await expect(tokens({ rejected: "at-1", signal: undefined })).resolves.toBe("at-2");
    await expect(tokens({ rejected: undefined, signal: undefined })).resolves.toBe("at-2");
    expect(seen).toHaveLength(2);
  });
});
