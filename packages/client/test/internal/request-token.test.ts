// The token function's side of the request path (DESIGN.md §3 "Tokens"):
// what it is told, and the one repeat after a 401.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { HttpResponse } from "msw";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClient, FdxAbortError, FdxError, FdxUnauthorizedError, FdxValidationError, type TokenContext } from "../../src/index.js";
import { BASE, rejectionOf, useMsw } from "../support/http.js";

const { on, seen } = useMsw();
const CONSENT = `${BASE}/consents/v1/c-1`;
const grant = { id: "c-1", status: "ACTIVE" };
const unauthorized = (code: number | string = 602) => HttpResponse.json({ code, message: "Customer not authorized" }, { status: 401 });
/** A server that takes only `valid` as the bearer token. */
const onlyAccepts = (valid: string) => (request: Request) =>
  request.headers.get("authorization") === `Bearer ${valid}` ? HttpResponse.json(grant) : unauthorized();

/** A token function that hands out `tokens` in turn and records what it was told. */
function tokens(...list: string[]) {
  const calls: TokenContext[] = [];
  let i = 0;
  const fn = (context: TokenContext) => {
    calls.push(context);
    return list[Math.min(i++, list.length - 1)]!;
  };
  return { fn, calls };
}

describe("the token function", () => {
  it("is called before each attempt with { rejected: undefined, signal }", async () => {
    on("get", CONSENT, () => HttpResponse.json(grant));
    const { fn, calls } = tokens("t-1");
    const controller = new AbortController();
    await createClient({ baseUrl: BASE, token: fn }).consents.get("c-1", { signal: controller.signal });
    expect(calls).toEqual([{ rejected: undefined, signal: controller.signal }]);
  });

  it("after a 401 is told the rejected token; a different one repeats the attempt at once", async () => {
    on("get", CONSENT, onlyAccepts("t-2"));
    const { fn, calls } = tokens("t-1", "t-2");
    const result = await createClient({ baseUrl: BASE, token: fn, maxRetries: 0 }).consents.get("c-1");
    expect(result).toEqual(grant);
    expect(calls.map((c) => c.rejected)).toEqual([undefined, "t-1"]);
    expect(seen.map((s) => s.headers.authorization)).toEqual(["Bearer t-1", "Bearer t-2"]);
    // The same call: one interaction id on both attempts.
    expect(seen[1]!.headers["x-fapi-interaction-id"]).toBe(seen[0]!.headers["x-fapi-interaction-id"]);
  });

  it("repeats a POST too: a 401 was not processed", async () => {
    on("post", `${BASE}/notifications/v1/subscriptions`, async (request) =>
      request.headers.get("authorization") === "Bearer t-2"
        ? HttpResponse.json({ ...((await request.json()) as object), subscriptionId: "s-1" })
        : unauthorized(1205),
    );
    const { fn } = tokens("t-1", "t-2");
    const created = await createClient({ baseUrl: BASE, token: fn }).subscriptions.create({
      category: "CONSENT",
      type: "CONSENT_REVOKED",
      callbackUrl: "https://me.test/hook",
    });
    expect(created.subscriptionId).toBe("s-1");
    expect(seen.map((s) => [s.method, s.headers.authorization])).toEqual([
      ["POST", "Bearer t-1"],
      ["POST", "Bearer t-2"],
    ]);
    expect(seen[1]!.body).toBe(seen[0]!.body);
  });

  it("throws the 401 when the function hands back the same token, without a second request", async () => {
    on("get", CONSENT, () => unauthorized());
    const { fn, calls } = tokens("t-1");
    const error = await rejectionOf(createClient({ baseUrl: BASE, token: fn }).consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxUnauthorizedError);
    expect((error as FdxUnauthorizedError).code).toBe("602");
    expect(calls.map((c) => c.rejected)).toEqual([undefined, "t-1"]);
    expect(seen).toHaveLength(1);
    // The rejected token stays out of the error.
    expect(JSON.stringify(error) + String(error) + (error as Error).stack).not.toContain("t-1");
  });

  it("an answer after the repeat that echoes the refused token shows neither token", async () => {
    const first = "first-Token-0123456789";
    const second = "second-Token-9876543210";
    on("get", CONSENT, (request) =>
      request.headers.get("authorization") === `Bearer ${first}`
        ? unauthorized()
        : new HttpResponse(`no: ${first} then ${second}`, { status: 404, headers: { "content-type": "text/plain", "x-echo": first } }),
    );
    const { fn } = tokens(first, second);
    const error = await rejectionOf(createClient({ baseUrl: BASE, token: fn, maxRetries: 0 }).consents.get("c-1"));
    expect(error).toMatchObject({ status: 404 });
    const views = [JSON.stringify(error), String(error), (error as Error).stack, inspect(error, { depth: 10 })].join("\n");
    expect(views).toContain("[redacted]");
    expect(views).not.toContain(first);
    expect(views).not.toContain(second);
  });

  it("repeats once per call: a second 401 is thrown, not retried (and maxRetries is not spent on it)", async () => {
    on("get", CONSENT, () => unauthorized());
    const { fn, calls } = tokens("t-1", "t-2", "t-3");
    const error = await rejectionOf(createClient({ baseUrl: BASE, token: fn, maxRetries: 2 }).consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxUnauthorizedError);
    expect(seen.map((s) => s.headers.authorization)).toEqual(["Bearer t-1", "Bearer t-2"]);
    expect(calls.map((c) => c.rejected)).toEqual([undefined, "t-1"]);
  });

  it("the repeat does not count as a retry: a 503 after it is still retried", async () => {
    on("get", CONSENT, (request, n) =>
      n === 1
        ? unauthorized()
        : n === 2
          ? HttpResponse.json({ code: "503", message: "Scheduled Maintenance" }, { status: 503, headers: { "Retry-After": "0" } })
          : onlyAccepts("t-2")(request),
    );
    const { fn } = tokens("t-1", "t-2");
    await expect(createClient({ baseUrl: BASE, token: fn, maxRetries: 1 }).consents.get("c-1")).resolves.toEqual(grant);
    expect(seen).toHaveLength(3);
  });

  it("an error the function throws after a 401 is the call's error (e.g. reauthorization required)", async () => {
    on("get", CONSENT, () => unauthorized());
    class Reauthorize extends FdxError {}
    const token = ({ rejected }: TokenContext) => {
      if (rejected) throw new Reauthorize("connect again");
      return "t-1";
    };
    const error = await rejectionOf(createClient({ baseUrl: BASE, token }).consents.get("c-1"));
    expect(error).toBeInstanceOf(Reauthorize);
    expect(seen).toHaveLength(1);
  });

  it("repeats once per call even across retries: a 401 after a retried 503 is thrown", async () => {
    on("get", CONSENT, (_, n) =>
      n === 2 ? HttpResponse.json({ code: "503", message: "Scheduled Maintenance" }, { status: 503, headers: { "Retry-After": "0" } }) : unauthorized(),
    );
    const { fn, calls } = tokens("t-1", "t-2", "t-3", "t-4");
    const error = await rejectionOf(createClient({ baseUrl: BASE, token: fn, maxRetries: 1 }).consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxUnauthorizedError);
    expect(calls.map((c) => c.rejected)).toEqual([undefined, "t-1", undefined]);
    expect(seen.map((s) => s.headers.authorization)).toEqual(["Bearer t-1", "Bearer t-2", "Bearer t-3"]);
  });

  it("a call already aborted asks the token function for nothing, and runs no hook", async () => {
    const { fn, calls } = tokens("t-1");
    const onRequest = vi.fn();
    const reason = new Error("gave up");
    const error = await rejectionOf(
      createClient({ baseUrl: BASE, token: fn, hooks: { onRequest } }).consents.get("c-1", { signal: AbortSignal.abort(reason) }),
    );
    expect(error).toBeInstanceOf(FdxAbortError);
    expect((error as FdxAbortError).cause).toBe(reason);
    expect(calls).toEqual([]);
    expect(onRequest).not.toHaveBeenCalled();
    expect(seen).toHaveLength(0);
  });

  it("a value that cannot go in a header is refused before the first attempt, even with no retry left", async () => {
    const { fn } = tokens("abc\ndef-secret");
    const error = await rejectionOf(createClient({ baseUrl: BASE, token: fn, maxRetries: 0 }).consents.get("c-1"));
    expect(error).toBeInstanceOf(FdxValidationError);
    expect((error as FdxValidationError).issues).toEqual([{ path: "token", message: "is not a valid HTTP header value" }]);
    expect(String(error)).not.toContain("def-secret");
    expect(seen).toHaveLength(0);
  });

  it("a token function that throws a plain error fails the call with an FdxError naming it", async () => {
    const thrown = new Error("vault unreachable");
    const token = () => {
      throw thrown;
    };
    const error = (await rejectionOf(createClient({ baseUrl: BASE, token }).consents.get("c-1"))) as FdxError;
    expect(error).toBeInstanceOf(FdxError);
    expect(error.message).toBe("The token function failed (see cause)");
    expect(error.code).toBe("token_failed");
    expect(error.cause).toBe(thrown);
    expect(seen).toHaveLength(0);
  });

  it("a custom fetch whose answers carry no URL still gets the repeat after a 401", async () => {
    // A Response made by hand (a test double, a proxy) has url "".
    const sent: (string | null)[] = [];
    const fetch = async (request: Request) => {
      sent.push(request.headers.get("authorization"));
      return sent.length === 1 ? Response.json({ code: 602, message: "Customer not authorized" }, { status: 401 }) : Response.json(grant);
    };
    const { fn, calls } = tokens("t-1", "t-2");
    await expect(createClient({ baseUrl: BASE, token: fn, fetch }).consents.get("c-1")).resolves.toEqual(grant);
    expect(calls.map((c) => c.rejected)).toEqual([undefined, "t-1"]);
    expect(sent).toEqual(["Bearer t-1", "Bearer t-2"]);
  });

  it("a string token gets no repeat", async () => {
    on("get", CONSENT, () => unauthorized());
    await expect(createClient({ baseUrl: BASE, token: "t-1" }).consents.get("c-1")).rejects.toBeInstanceOf(FdxUnauthorizedError);
    expect(seen).toHaveLength(1);
  });

  it("a 403 or 404 is no rejection of the token", async () => {
    on("get", CONSENT, () => HttpResponse.json({ code: "NotFound", message: "nope" }, { status: 404 }));
    const { fn, calls } = tokens("t-1", "t-2");
    await expect(createClient({ baseUrl: BASE, token: fn, maxRetries: 0 }).consents.get("c-1")).rejects.toMatchObject({ status: 404 });
    expect(calls.map((c) => c.rejected)).toEqual([undefined]);
  });

  it("each page of a listing asks for the token again", async () => {
    const LIST = `${BASE}/statements/v2/p/a`;
    on("get", LIST, (request) => {
      const offset = new URL(request.url).searchParams.get("offset");
      return offset === "2"
        ? HttpResponse.json({ statements: [{ statementId: "s-2" }] })
        : HttpResponse.json({ statements: [{ statementId: "s-1" }], links: { next: { href: "/statements/v2/p/a?offset=2" } } });
    });
    const { fn, calls } = tokens("t-1", "t-2");
    const ids: string[] = [];
    for await (const s of createClient({ baseUrl: BASE, token: fn }).statements.list({ providerId: "p", accountId: "a" })) ids.push(s.statementId!);
    expect(ids).toEqual(["s-1", "s-2"]);
    expect(calls).toHaveLength(2);
    expect(seen.map((s) => s.headers.authorization)).toEqual(["Bearer t-1", "Bearer t-2"]);
  });
});

describe("a redirected download", () => {
  let close: (() => void) | undefined;
  afterEach(() => close?.());

  it("a 401 from its own origin, after a redirect there, is a rejection of the token: repeated with a fresh one", async () => {
    const hits: string[] = [];
    const api = createServer((req, res) => {
      hits.push(`${req.url} ${req.headers.authorization ?? "-"}`);
      if (req.url !== "/doc.pdf") return res.writeHead(302, { location: "/doc.pdf" }).end();
      if (req.headers.authorization !== "Bearer t-2") return res.writeHead(401, { "content-type": "application/json" }).end('{"code":"602"}');
      res.writeHead(200, { "content-type": "application/pdf" }).end("%PDF-1.7");
    });
    await new Promise<void>((r) => api.listen(0, "127.0.0.1", r));
    close = () => {
      api.closeAllConnections();
      api.close();
    };
    const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const { fn, calls } = tokens("t-1", "t-2");
    const document = await createClient({ baseUrl: base, token: fn, maxRetries: 0 }).statements.download("/statements/v2/p/a/s-1");
    expect(new TextDecoder().decode(await document.arrayBuffer())).toBe("%PDF-1.7");
    expect(calls.map((c) => c.rejected)).toEqual([undefined, "t-1"]);
    expect(hits).toEqual(["/statements/v2/p/a/s-1 Bearer t-1", "/doc.pdf Bearer t-1", "/statements/v2/p/a/s-1 Bearer t-2", "/doc.pdf Bearer t-2"]);
  });

  it("a 401 whose URL is unknown (a custom fetch's answer), after a redirect, is no rejection of the token", async () => {
    const urls: string[] = [];
    const fetch = async (request: Request) => {
      urls.push(request.url);
      return urls.length === 1 ? new Response(null, { status: 302, headers: { location: "/doc.pdf" } }) : new Response("expired", { status: 401 });
    };
    const { fn, calls } = tokens("t-1", "t-2");
    const error = await rejectionOf(createClient({ baseUrl: BASE, token: fn, fetch, maxRetries: 0 }).statements.download("/statements/v2/p/a/s-1"));
    expect(error).toBeInstanceOf(FdxUnauthorizedError);
    expect(calls.map((c) => c.rejected)).toEqual([undefined]);
    expect(urls).toEqual([`${BASE}/statements/v2/p/a/s-1`, `${BASE}/doc.pdf`]);
  });

  it("a 401 whose URL is unknown, not redirected, is a rejection of the token", async () => {
    const sent: (string | null)[] = [];
    const fetch = async (request: Request) => {
      sent.push(request.headers.get("authorization"));
      return sent.length === 1 ? new Response("expired", { status: 401 }) : new Response("%PDF-1.7", { headers: { "content-type": "application/pdf" } });
    };
    const { fn } = tokens("t-1", "t-2");
    const document = await createClient({ baseUrl: BASE, token: fn, fetch, maxRetries: 0 }).statements.download("/statements/v2/p/a/s-1");
    expect(new TextDecoder().decode(await document.arrayBuffer())).toBe("%PDF-1.7");
    expect(sent).toEqual(["Bearer t-1", "Bearer t-2"]);
  });

  it("a browser's opaque redirect is fetched again, for the platform to follow", async () => {
    const modes: (string | undefined)[] = [];
    const fetch = async (request: Request) => {
      modes.push(request.redirect);
      if (modes.length === 1)
        return { type: "opaqueredirect", status: 0, statusText: "", ok: false, url: "", headers: new Headers(), body: null } as unknown as Response;
      return new Response("%PDF-1.7", { headers: { "content-type": "application/pdf" } });
    };
    const document = await createClient({ baseUrl: BASE, token: "t-1", fetch }).statements.download("/statements/v2/p/a/s-1");
    expect(new TextDecoder().decode(await document.arrayBuffer())).toBe("%PDF-1.7");
    expect(modes).toEqual(["manual", "follow"]);
  });

  it("follows a 300 with a Location like any other redirect", async () => {
    const urls: string[] = [];
    const fetch = async (request: Request) => {
      urls.push(request.url);
      return urls.length === 1
        ? new Response(null, { status: 300, headers: { location: "/doc.pdf" } })
        : new Response("%PDF-1.7", { headers: { "content-type": "application/pdf" } });
    };
    const document = await createClient({ baseUrl: BASE, token: "t-1", fetch }).statements.download("/statements/v2/p/a/s-1");
    expect(new TextDecoder().decode(await document.arrayBuffer())).toBe("%PDF-1.7");
    expect(urls).toEqual([`${BASE}/statements/v2/p/a/s-1`, `${BASE}/doc.pdf`]);
  });

  it("a 401 from the document host it was sent to is no rejection of the user's token", async () => {
    // Two real origins: the API redirects, the document host refuses.
    const hits: string[] = [];
    const documents = createServer((req, res) => {
      hits.push(`doc ${req.headers.authorization ?? "-"}`);
      res.writeHead(401, { "content-type": "text/plain" }).end("signature expired");
    });
    await new Promise<void>((r) => documents.listen(0, "127.0.0.1", r));
    // Another port is another origin (and msw lets 127.0.0.1 through to the real servers).
    const docUrl = `http://127.0.0.1:${(documents.address() as AddressInfo).port}/doc.pdf`;
    const api = createServer((req, res) => {
      hits.push(`api ${req.headers.authorization ?? "-"}`);
      res.writeHead(302, { location: docUrl }).end();
    });
    await new Promise<void>((r) => api.listen(0, "127.0.0.1", r));
    close = () => {
      documents.closeAllConnections();
      documents.close();
      api.closeAllConnections();
      api.close();
    };
    const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const { fn, calls } = tokens("t-1", "t-2");
    const error = await rejectionOf(createClient({ baseUrl: base, token: fn, maxRetries: 0 }).statements.download("/statements/v2/p/a/s-1"));
    expect(error).toBeInstanceOf(FdxUnauthorizedError);
    expect(calls.map((c) => c.rejected)).toEqual([undefined]);
    // Authorization never went to the other origin, and nothing was repeated.
    expect(hits).toEqual(["api Bearer t-1", "doc -"]);
  });
});
