// clientCredentials: the issue named for each bad option, what the token
// request carries, and how each form of token answer is read (JSON,
// form-encoded under its own or another media type, no or odd expires_in).
import { describe, expect, it, vi } from "vitest";
import { clientCredentials, FdxResponseError, FdxValidationError } from "../../src/index.js";

const TOKEN_URL = "https://auth.test/token";
const base = { tokenUrl: TOKEN_URL, clientId: "id", clientSecret: "pw-secret" };

function tokensAnswering(respond: () => Response) {
  const requests: Request[] = [];
  const fetch = vi.fn(async (request: Request) => {
    requests.push(request);
    return respond();
  });
  return { tokens: clientCredentials({ ...base, fetch }), requests, fetch };
}

const issuesOf = (options: Record<string, unknown>) => {
  try {
    clientCredentials(options as never);
  } catch (error) {
    expect(error).toBeInstanceOf(FdxValidationError);
    return (error as FdxValidationError).issues;
  }
  throw new Error("accepted");
};

describe("options", () => {
  it("names each bad option at once", () => {
    expect(issuesOf({ tokenUrl: "auth.test/token", clientId: "", clientSecret: 7, scope: ["a", 1], timeoutMs: -1 })).toEqual([
      { path: "tokenUrl", message: "must be an absolute http(s) URL" },
      { path: "clientId", message: "must be a non-empty string" },
      { path: "clientSecret", message: "must be a non-empty string" },
      { path: "scope", message: "must be a string or an array of strings" },
      { path: "timeoutMs", message: "must be an integer >= 0" },
    ]);
  });

  it("takes timeoutMs 0 and an http: token URL", () => {
    expect(() => clientCredentials({ ...base, tokenUrl: "http://127.0.0.1:9/token", timeoutMs: 0 })).not.toThrow();
  });
});

describe("the token request", () => {
  it("carries no interaction id, and the Basic credential form-encodes id and secret", async () => {
    const requests: Request[] = [];
    const tokens = clientCredentials({
      tokenUrl: TOKEN_URL,
      clientId: "a b",
      clientSecret: "p&q=r",
      fetch: async (request: Request) => {
        requests.push(request);
        return Response.json({ access_token: "at" });
      },
    });
    await tokens();
    expect(requests[0]?.headers.get("x-fapi-interaction-id")).toBeNull();
    expect(requests[0]?.headers.get("authorization")).toBe(`Basic ${btoa("a+b:p%26q%3Dr")}`);
  });
});

describe("token answers", () => {
  it.each([
    ["JSON", () => Response.json({ access_token: "at-json", expires_in: 60 })],
    ["form-encoded", () => new Response("access_token=at-form&expires_in=60", { headers: { "content-type": "application/x-www-form-urlencoded" } })],
    ["form fields as text/plain", () => new Response("access_token=at-text&expires_in=60", { headers: { "content-type": "text/plain" } })],
    ["form fields with no media type", () => new Response(new Blob(["access_token=at-none"]))],
    [
      "form-encoded, a first field name of unusual characters",
      () => new Response("x!y=1&access_token=at-odd", { headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" } }),
    ],
  ])("reads a %s answer", async (_, respond) => {
    const { tokens } = tokensAnswering(respond);
    expect(await tokens()).toMatch(/^at-/);
  });

  it.each([
    ["a JSON array", () => Response.json([{ access_token: "x" }]), "the token response is not a JSON object"],
    [
      "text that is no form",
      () => new Response("not json, access_token=at", { headers: { "content-type": "text/plain" } }),
      "the token response is not a JSON object",
    ],
    ["JSON without a token", () => Response.json({ token_type: "Bearer" }), "missing from the token response"],
    ["an empty token", () => Response.json({ access_token: "" }), "missing from the token response"],
    ["a token that is a number", () => Response.json({ access_token: 42 }), "missing from the token response"],
  ])("refuses %s, naming access_token", async (_, respond, message) => {
    const { tokens } = tokensAnswering(respond);
    const error = await tokens().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FdxResponseError);
    expect((error as FdxResponseError).issues).toEqual([{ path: "access_token", message }]);
  });

  it.each([
    ["no expires_in", {}, 300_000],
    ["expires_in 0", { expires_in: 0 }, 300_000],
    ["a negative expires_in", { expires_in: -5 }, 300_000],
    ["an expires_in that is no number", { expires_in: "soon" }, 300_000],
    ["expires_in 120", { expires_in: 120 }, 120_000],
  ])("with %s, asks again only once the token is due", async (_, extra, lifetimeMs) => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      let n = 0;
      const { tokens, fetch } = tokensAnswering(() => Response.json({ access_token: `at-${++n}`, ...extra }));
      expect(await tokens()).toBe("at-1");
      vi.setSystemTime(1_000_000 + lifetimeMs / 4);
      expect(await tokens()).toBe("at-1");
      vi.setSystemTime(1_000_000 + lifetimeMs + 1);
      expect(await tokens()).toBe("at-2");
      expect(fetch).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
