import { describe, expect, it, afterAll, beforeAll } from "vitest";
import { clip, dropCutSecret, redactCause, redactText, redactValue, secretForms } from "../../src/core/redact.js";
import { inspect } from "node:util";
import { HttpResponse } from "msw";
import {
  createClient,
  FdxAbortError,
  FdxApiError,
  FdxBadRequestError,
  FdxConnectionError,
  FdxError,
  FdxInternalServerError,
  FdxLinkError,
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
import { BASE, rejectionOf, refusedPort, startHttp, useMsw, type RealServer } from "../support/http.js";

// The redaction functions themselves (core/redact.ts): which forms of a
// secret are found, where a short one is not, and what of an error's cause is
// kept; then the end-to-end cases (a server or a custom fetch echoing the
// token).
describe("secretForms", () => {
  it("is nothing for an empty secret", () => {
    expect(secretForms("")).toEqual([]);
  });

  it("lists the secret as is, JSON-escaped (slashes too), URL- and form-encoded, each once", () => {
    expect(secretForms('a/b c+"d').slice(0, 5)).toEqual(['a/b c+"d', 'a/b c+\\"d', 'a\\/b c+\\"d', "a%2Fb%20c%2B%22d", "a%2Fb+c%2B%22d"]);
    expect(secretForms("plain-token")[0]).toBe("plain-token");
    expect(secretForms("plain-token")[1]).not.toBe("plain-token");
  });

  it("adds its base64 and base64url encodings, padded and not, each escaped like the secret", () => {
    const forms = secretForms("???>>>??");
    for (const form of ["Pz8/Pj4+Pz8=", "Pz8/Pj4+Pz8", "Pz8_Pj4-Pz8=", "Pz8_Pj4-Pz8", "Pz8\\/Pj4+Pz8=", "Pz8%2FPj4%2BPz8%3D", "Pz8%2FPj4%2BPz8"]) {
      expect(forms).toContain(form);
    }
    // Of the UTF-8 bytes, as a server encodes them.
    expect(secretForms("tök€n-0123")).toContain(Buffer.from("tök€n-0123").toString("base64url"));
  });

  it("adds the pieces from 8 characters on: an 8-character secret base64-encoded inside a longer text is found", () => {
    const encoded = Buffer.from("x8chars!&scope=openid").toString("base64");
    expect(redactText(`echo: ${encoded}`, secretForms("8chars!&"))).toMatch(/^echo: \S{0,2}\[redacted\]/);
    expect(redactText(`echo: ${Buffer.from("x7chars&scope=openid").toString("base64")}`, secretForms("7chars&"))).not.toContain("[redacted]");
  });

  it("adds no pieces for a secret under 8 characters: only its whole encodings, which redactText treats as short words", () => {
    expect(secretForms("abcdefg")).toEqual(["abcdefg", "YWJjZGVmZw==", "YWJjZGVmZw%3D%3D", "YWJjZGVmZw"]);
    expect(redactText("xYWJjx YWJj", secretForms("abc"))).toBe("xYWJjx [redacted]");
  });

  describe("a secret base64-encoded inside a longer text, at every byte alignment", () => {
    const secret = "rt-0123456789-refresh";
    it.each([0, 1, 2, 3, 4, 5].flatMap((before) => (["base64", "base64url"] as const).map((encoding) => [before, encoding] as const)))(
      "%i bytes before it, %s: every character that encodes nothing but the secret is gone",
      (before, encoding) => {
        const encoded = Buffer.from(`${"x".repeat(before)}${secret}&scope=openid`).toString(encoding);
        const redacted = redactText(`echo: ${encoded}`, secretForms(secret));
        const [head, tail, ...more] = redacted.slice("echo: ".length).split("[redacted]");
        expect(more).toEqual([]);
        // What is left is the text's own start and end, each with at most one character mixing the secret's edge bits with its neighbour's.
        expect(encoded.startsWith(head!)).toBe(true);
        expect(encoded.endsWith(tail!)).toBe(true);
        expect(head!.length).toBeLessThanOrEqual(Math.ceil((before * 8) / 6));
        expect(tail!.length).toBeLessThanOrEqual(encoded.length - Math.floor(((before + secret.length) * 8) / 6));
      },
    );
  });
});

describe("redactText", () => {
  it("replaces a secret of 8 characters or more wherever it appears", () => {
    expect(redactText("xx12345678yy and 12345678", ["12345678"])).toBe("xx[redacted]yy and [redacted]");
  });

  it("replaces a shorter secret only as a whole word", () => {
    expect(redactText("abc1234 1234567 x1234567", ["1234567"])).toBe("abc1234 [redacted] x1234567");
    expect(redactText("t is not in tea; t", ["t"])).toBe("[redacted] is not in tea; [redacted]");
  });

  it("takes a short secret's characters literally", () => {
    expect(redactText("aXbbc a.b*c", ["a.b*c"])).toBe("aXbbc [redacted]");
    expect(redactText("(x) [y]", ["(x)", "[y]"])).toBe("[redacted] [redacted]");
  });

  it("leaves text without a secret as it is", () => {
    expect(redactText("nothing here", ["secret-value"])).toBe("nothing here");
  });
});

describe("clip", () => {
  it("keeps text of up to 200 characters, and cuts longer text to 200 with its ellipsis", () => {
    expect(clip("a".repeat(200), [])).toBe("a".repeat(200));
    expect(clip("a".repeat(201), [])).toBe(`${"a".repeat(199)}…`);
    expect(clip("a".repeat(201), [])).toHaveLength(200);
    expect(clip("", [])).toBe("");
    expect(clip("abcdef", [], 4)).toBe("abc…");
  });

  it("redacts the whole text before it cuts: a secret across the cut leaves no prefix, a cut may split the marker", () => {
    const secret = "0123456789abcdef";
    expect(clip(`${"x".repeat(190)}${secret}`, [secret])).toBe(`${"x".repeat(190)}[redacted]`);
    expect(clip(`${"x".repeat(195)}${secret}`, [secret])).toBe(`${"x".repeat(195)}[red…`);
  });
});

describe("dropCutSecret", () => {
  const secret = "0123456789abcdef";
  it("drops an end of a cut text that begins a secret, however short", () => {
    expect(dropCutSecret("text 0123456", [secret])).toBe("text ");
    expect(dropCutSecret("text 0", [secret])).toBe("text ");
    expect(dropCutSecret("0123", [secret])).toBe("");
  });

  it("drops the longest such end over all secrets, and leaves other text alone", () => {
    expect(dropCutSecret("text abc", ["bcx-secret", "abcxyz-secret"])).toBe("text ");
    expect(dropCutSecret("text 0123 more", [secret])).toBe("text 0123 more");
    expect(dropCutSecret("text", [])).toBe("text");
    // A whole secret is not an end that begins one: redaction finds it.
    expect(dropCutSecret(`x ${secret}`, [secret])).toBe(`x ${secret}`);
  });
});

describe("redactValue", () => {
  it("redacts strings, keys and nested values, and keeps everything else", () => {
    const secrets = ["s3cr3t-token"];
    expect(redactValue({ "s3cr3t-token": ["a s3cr3t-token", 1, null, { deep: "s3cr3t-token" }], ok: true }, secrets)).toEqual({
      "[redacted]": ["a [redacted]", 1, null, { deep: "[redacted]" }],
      ok: true,
    });
  });
});

describe("redactValue: depth", () => {
  const secrets = ["s3cr3t-token"];
  const nested = (levels: number, inner: unknown) => {
    let value = inner;
    for (let i = 0; i < levels; i++) value = { a: value };
    return value;
  };

  it("with no secret to look for, hands the value back as it is", () => {
    const value = { a: ["s3cr3t-token"] };
    expect(redactValue(value, [])).toBe(value);
  });

  it("redacts down to an object 32 levels below the top", () => {
    // The innermost object is 32 levels down; its string is redacted.
    expect(JSON.stringify(redactValue(nested(32, { s: "s3cr3t-token" }), secrets))).not.toContain("s3cr3t-token");
  });

  it("stops below that, so a hostile nesting cannot overflow the stack", () => {
    const deep = nested(200_000, "s3cr3t-token");
    expect(() => redactValue(deep, secrets)).not.toThrow();
    // Too deep even to serialise: replaced whole, as nothing can tell it holds no secret.
    expect(JSON.stringify(redactValue(deep, secrets))).toBe(JSON.stringify(nested(33, "[redacted]")));
  });

  it("replaces whole what lies deeper than that when a secret is in it, and keeps it when none is", () => {
    const withSecret = redactValue(nested(40, { s: "s3cr3t-token" }), secrets);
    expect(JSON.stringify(withSecret)).not.toContain("s3cr3t-token");
    expect(JSON.stringify(withSecret)).toBe(JSON.stringify(nested(33, "[redacted]")));
    const without = nested(40, { s: "nothing to hide" });
    expect(redactValue(without, secrets)).toEqual(without);
  });

  it('copies a "__proto__" key as a key, never as the copy\'s prototype', () => {
    const body = JSON.parse('{"__proto__":{"polluted":"s3cr3t-token"},"code":"500"}') as Record<string, unknown>;
    const copy = redactValue(body, secrets);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["__proto__", "code"]);
    expect(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value).toEqual({ polluted: "[redacted]" });
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

describe("redactCause", () => {
  const secrets = ["s3cr3t-token"];

  it("keeps a cause of null as it is", () => {
    expect(redactCause(null, secrets)).toBeNull();
  });

  it("drops a symbol whose description names a secret", () => {
    expect(redactCause(Symbol("s3cr3t-token"), secrets)).toBeUndefined();
  });

  it("finds a secret that only the stack names", () => {
    const cause = new Error("fetch failed");
    cause.stack = "Error: fetch failed\n    at get (https://api.test/x?access_token=s3cr3t-token)";
    const copy = redactCause(cause, secrets) as Error;
    expect(copy).not.toBe(cause);
    expect(copy.stack).toBe("Error: fetch failed\n    at get (https://api.test/x?access_token=[redacted])");
  });

  it("gives a copy no cause when the error had none", () => {
    const copy = redactCause(new Error("saw s3cr3t-token"), secrets) as Error;
    expect(copy.message).toBe("saw [redacted]");
    expect("cause" in copy).toBe(false);
  });

  it("copies an error that is its own cause five deep, without looping", () => {
    const cause = new Error("loop");
    cause.cause = cause;
    const copy = redactCause(cause, secrets) as Error;
    const messages: string[] = [];
    for (let e: unknown = copy; e instanceof Error; e = e.cause) messages.push(e.message);
    expect(messages).toEqual(["loop", "loop", "loop", "loop", "loop"]);
  });

  it("keeps a clean chain of five causes as it is, and copies a longer one, whose end no one looked at", () => {
    const chain = (length: number) => {
      let e = new Error(`level ${length - 1}`);
      for (let i = length - 2; i >= 0; i--) e = new Error(`level ${i}`, { cause: e });
      return e;
    };
    const five = chain(5);
    expect(redactCause(five, secrets)).toBe(five);
    const six = chain(6);
    expect(redactCause(six, secrets)).not.toBe(six);
  });

  it("keeps a cause that names no secret as the very same object", () => {
    const cause = new TypeError("fetch failed");
    expect(redactCause(cause, secrets)).toBe(cause);
    expect(redactCause(cause, [])).toBe(cause);
  });

  it("copies an error that names a secret: name, message, stack and plain own fields redacted; objects dropped", () => {
    const cause = Object.assign(new TypeError("refused Bearer s3cr3t-token"), {
      code: "ECONNREFUSED",
      errno: -111,
      header: "s3cr3t-token",
      request: { h: 1 },
      nothing: null,
    });
    const copy = redactCause(cause, secrets) as Error & Record<string, unknown>;
    expect(copy).not.toBe(cause);
    expect(copy).toBeInstanceOf(Error);
    expect(copy.name).toBe("TypeError");
    expect(copy.message).toBe("refused Bearer [redacted]");
    expect(copy.stack).toContain("refused Bearer [redacted]");
    expect(copy.stack).not.toContain("s3cr3t-token");
    expect({ code: copy.code, errno: copy.errno, header: copy.header, nothing: copy.nothing }).toEqual({
      code: "ECONNREFUSED",
      errno: -111,
      header: "[redacted]",
      nothing: null,
    });
    expect("request" in copy).toBe(false);
  });

  it("gives an error without a stack one of its name and message", () => {
    const cause = new Error("saw s3cr3t-token");
    cause.name = "VaultError";
    delete (cause as { stack?: string }).stack;
    expect((redactCause(cause, secrets) as Error).stack).toBe("VaultError: saw [redacted]");
  });

  it("looks down the cause chain: a secret there makes a copy, with the chain redacted", () => {
    const cause = new Error("outer", { cause: new Error("inner s3cr3t-token") });
    const copy = redactCause(cause, secrets) as Error;
    expect(copy).not.toBe(cause);
    expect(copy.message).toBe("outer");
    expect((copy.cause as Error).message).toBe("inner [redacted]");
  });

  it("finds a secret in a cause that is an object, a string or a number, and drops such a cause", () => {
    expect(redactCause({ headers: { authorization: "Bearer s3cr3t-token" } }, secrets)).toBeUndefined();
    expect(redactCause("s3cr3t-token", secrets)).toBeUndefined();
    expect(redactCause(12345678, ["12345678"])).toBeUndefined();
    const clean = { headers: { accept: "application/json" } };
    expect(redactCause(clean, secrets)).toBe(clean);
  });

  it("drops a cause it cannot serialise, as it cannot show it clean", () => {
    const cyclic: Record<string, unknown> = { name: "x" };
    cyclic.self = cyclic;
    expect(redactCause(cyclic, secrets)).toBeUndefined();
  });

  it("keeps four causes deep and drops what lies further, where no one looked for the secret", () => {
    let chain: Error = new Error("deepest s3cr3t-token");
    for (let i = 5; i >= 0; i--) chain = new Error(`level ${i}`, { cause: chain });
    const copy = redactCause(chain, secrets) as Error;
    const messages: string[] = [];
    for (let e: unknown = copy; e instanceof Error; e = e.cause) messages.push(e.message);
    expect(messages).toEqual(["level 0", "level 1", "level 2", "level 3", "level 4"]);
    expect(JSON.stringify(messages)).not.toContain("s3cr3t");
  });
});

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
    on("get", `${BASE}/consents/v1/c-1`, () => HttpResponse.json({ code: String(status), message: "nope", debugMessage: "dbg" }, { status }));
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
        {
          code: "1205",
          message: `Unauthorized: Bearer ${SECRET}`,
          debugMessage: `token ${JSON.stringify(SECRET).slice(1, -1)} rejected`,
          echo: { auth: [`Bearer ${SECRET}`] },
        },
        { status: 401, headers: { "www-authenticate": `Bearer error="invalid_token", token="${SECRET}"` } },
      ),
    );
    const error = (await rejectionOf(client().consents.get("c-1"))) as FdxApiError;
    expect(error).toBeInstanceOf(FdxUnauthorizedError);
    expectNoToken(error);
    expect(error.message).toBe("Unauthorized: Bearer [redacted]");
    expect(error.debugMessage).toBe("token [redacted] rejected");
    expect(error.body).toEqual({
      code: "1205",
      message: "Unauthorized: Bearer [redacted]",
      debugMessage: "token [redacted] rejected",
      echo: { auth: ["Bearer [redacted]"] },
    });
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

// Hostile servers on 127.0.0.1 that place the token where the SDK cuts text:
// redaction runs on the whole text before any cut, so not even a piece of
// the token survives (the issue found 40 of 41 characters left at a cut).
describe("no piece of the token survives a cut, nor a URL or link that carried it", () => {
  /** Every 8-character piece of the token: none may show in any view of the error. */
  const pieces = Array.from({ length: SECRET.length - 7 }, (_, i) => SECRET.slice(i, i + 8));
  function expectNoPiece(error: unknown) {
    expect(error).toBeInstanceOf(FdxError);
    const e = error as Error;
    for (const view of [e.message, e.stack ?? "", String(e), JSON.stringify(e), inspect(e, { depth: 10 })]) {
      for (const piece of pieces) expect(view).not.toContain(piece);
    }
  }

  let server: RealServer;
  let reply: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void = () => {};
  beforeAll(async () => {
    server = await startHttp((req, res) => reply(req, res));
  });
  afterAll(() => server.close());

  describe.each([
    ["a string token", SECRET],
    ["a token function", async () => SECRET],
  ] as const)("with %s", (_, token) => {
    const client = (options: Partial<ClientOptions> = {}) => createClient({ baseUrl: server.url, token, maxRetries: 0, ...options });

    it("a plain-text 401 with the token across character 200 of the message", async () => {
      reply = (_req, res) => res.writeHead(401, { "content-type": "text/plain" }).end(`${"x".repeat(180)} ${SECRET} and more text after it`);
      const error = (await rejectionOf(client().consents.get("c-1"))) as FdxApiError;
      expect(error).toBeInstanceOf(FdxUnauthorizedError);
      expectNoPiece(error);
      expect(error.message).toHaveLength(200);
      expect(error.message).toMatch(/^x{180} \[redacted\] and/);
    });

    it("an error body with the token across its 64 KiB cut", async () => {
      const before = 64 * 1024 - 20;
      reply = (_req, res) => res.writeHead(500, { "content-type": "text/plain" }).end(`${"y".repeat(before)}${SECRET}${"z".repeat(1000)}`);
      const error = (await rejectionOf(client().consents.get("c-1"))) as FdxApiError;
      expectNoPiece(error);
      // The 20 characters of the token before the cut are dropped with it.
      expect(error.body).toBe("y".repeat(before));
    });

    it("a 2xx body that is not JSON, with the token where the parser's message quotes a few characters of it", async () => {
      reply = (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(`${SECRET}${" filler".repeat(100)}`);
      const error = await rejectionOf(client().consents.get("c-1"));
      expect(error).toBeInstanceOf(FdxResponseError);
      expectNoPiece(error);
      expect((error as FdxResponseError).issues[0]!.message).toMatch(/^response body is not valid JSON \(.*\[redacted/);
    });

    it("a redirect of a JSON call whose Location carries the token: FdxLinkError.href redacted", async () => {
      reply = (_req, res) => res.writeHead(302, { location: `${server.url}/elsewhere?access_token=${encodeURIComponent(SECRET)}` }).end();
      const error = (await rejectionOf(client().consents.get("c-1"))) as FdxLinkError;
      expect(error).toBeInstanceOf(FdxLinkError);
      expectNoPiece(error);
      expect(error.href).toBe(`${server.url}/elsewhere?access_token=[redacted]`);
    });

    describe("a same-origin page link that carried the token", () => {
      const withToken = `/statements/v2/P/A?access_token=${SECRET}`;
      const list = (options: Partial<ClientOptions> = {}) =>
        client({ productsUrl: server.url, ...options }).statements.list({ providerId: "P", accountId: "A" });
      const drain = async (paginator: ReturnType<typeof list>) => {
        for await (const _ of paginator.pages());
      };
      const firstPage = (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse, next: string) => {
        if (req.url === "/statements/v2/P/A") {
          res
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ statements: [{ statementId: "s1" }], links: { next: { href: next } } }));
          return true;
        }
        return false;
      };

      it("then an error answer: FdxApiError.url and message redacted", async () => {
        reply = (req, res) => firstPage(req, res, withToken) || res.writeHead(404, { "content-type": "text/plain" }).end(`no page at ${req.url}`);
        const error = (await rejectionOf(drain(list()))) as FdxApiError;
        expect(error).toBeInstanceOf(FdxNotFoundError);
        expectNoPiece(error);
        expect(error.url).toBe(`${server.url}/statements/v2/P/A?access_token=[redacted]`);
      });

      it("then no answer in time: FdxTimeoutError's message redacted", async () => {
        reply = (req, res) => void firstPage(req, res, withToken);
        const error = await rejectionOf(drain(list({ timeoutMs: 50 })));
        expect(error).toBeInstanceOf(FdxTimeoutError);
        expectNoPiece(error);
      });

      it("then a link back to itself, or to another origin: FdxLinkError's href and message redacted", async () => {
        const loop = { statements: [{ statementId: "s2" }], links: { next: { href: withToken } } };
        reply = (req, res) => firstPage(req, res, withToken) || res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(loop));
        const looped = (await rejectionOf(drain(list()))) as FdxLinkError;
        expect(looped).toBeInstanceOf(FdxLinkError);
        expectNoPiece(looped);
        expect(looped.href).toBe("/statements/v2/P/A?access_token=[redacted]");

        reply = (req, res) => void firstPage(req, res, `https://elsewhere.test/x?access_token=${SECRET}`);
        const foreign = (await rejectionOf(drain(list()))) as FdxLinkError;
        expect(foreign).toBeInstanceOf(FdxLinkError);
        expectNoPiece(foreign);
      });
    });
  });
});
