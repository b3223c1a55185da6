import { inspect } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAuthClient, FdxAuthError } from "../../src/auth/index.js";
import { FdxApiError, FdxConnectionError } from "../../src/index.js";
import { rejectionOf } from "../support/http.js";
import { CLIENT_ID, CLIENT_SECRET, ISSUER, REDIRECT_URI, startIdp, type TestIdp } from "../support/idp.js";

// A refresh token a hostile or careless IdP echoes base64-encoded — alone, or
// inside the whole request body it quotes — never shows in the error the
// refresh throws, in any field or rendering.
let idp: TestIdp;
beforeAll(async () => {
  idp = await startIdp();
});
afterAll(() => idp.close());
afterEach(() => {
  idp.override = undefined;
});

const make = (extra: Partial<Parameters<typeof createAuthClient>[0]> = {}) =>
  createAuthClient({ issuer: idp.url, expectedIssuer: ISSUER, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI, ...extra });

async function refreshToken(): Promise<string> {
  const auth = make();
  const req = await auth.authorizationUrl({ connector: "c" });
  return (await auth.exchangeCode(idp.callback(req.url), req)).refreshToken;
}

const b64 = (text: string) => Buffer.from(text).toString("base64");
const b64url = (text: string) => Buffer.from(text).toString("base64url");

/** What the IdP quotes of a request it refuses: the form body inside JSON, so the token sits at no multiple of 3 bytes. */
const quoted = (body: string) => JSON.stringify({ received: body, at: "2025-01-01T00:00:00Z" });

/** The token's whole encodings, padded and not, and the characters of the encoded quote that encode the token alone. */
function encodedForms(token: string, body: string): string[] {
  const text = quoted(body);
  const start = text.indexOf(token);
  expect(start % 3).not.toBe(0);
  const inner = (encoded: string) => encoded.slice(Math.ceil((start * 8) / 6), Math.floor(((start + token.length) * 8) / 6));
  return [b64(token), b64(token).replace(/=+$/, ""), b64url(token), b64url(token).replace(/=+$/, ""), inner(b64(text)), inner(b64url(text))];
}

/** Every place a user could read from the error. */
function views(error: unknown): string[] {
  const e = error as Error & { body?: unknown; headers?: unknown; url?: string; errorDescription?: string };
  return [
    e.message,
    e.stack ?? "",
    String(e),
    JSON.stringify(e),
    inspect(e, { depth: 10 }),
    JSON.stringify(e.body ?? ""),
    JSON.stringify(e.headers ?? ""),
    e.errorDescription ?? "",
    inspect(e.cause, { depth: 10 }),
  ];
}

function expectNoForm(error: unknown, forms: string[]) {
  for (const view of views(error)) {
    for (const form of forms) expect(view, `a form of the token (${form.slice(0, 4)}…) shows`).not.toContain(form);
  }
}

describe("a refresh token echoed base64-encoded", () => {
  it("in an OAuth error body: FdxAuthError's message and description show [redacted] instead", async () => {
    const token = await refreshToken();
    let body = "";
    idp.override = ({ path, form }, res) => {
      if (path !== "/token") return false;
      body = form.toString();
      const description = `unknown token ${b64(token)} / ${b64url(token).replace(/=+$/, "")}; request was ${b64(quoted(body))}`;
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid_grant", error_description: description }));
      return true;
    };
    const error = await rejectionOf(make().refresh(token));
    expect(error).toBeInstanceOf(FdxAuthError);
    expect(error).toMatchObject({ error: "invalid_grant", status: 400 });
    expect((error as FdxAuthError).errorDescription).toMatch(/^unknown token \[redacted\] \/ \[redacted\]; request was .*\[redacted\]/);
    expectNoForm(error, encodedForms(token, body));
  });

  it("in a body that is no OAuth error, and in a header: FdxApiError's message, body and headers redacted", async () => {
    const token = await refreshToken();
    let body = "";
    idp.override = ({ path, form }, res) => {
      if (path !== "/token") return false;
      body = form.toString();
      res.writeHead(502, { "content-type": "text/plain", "x-echo": b64url(quoted(body)) }).end(`upstream refused ${b64(token)} in ${b64url(quoted(body))}`);
      return true;
    };
    const error = await rejectionOf(make().refresh(token));
    expect(error).toBeInstanceOf(FdxApiError);
    expect(error).toMatchObject({ status: 502, body: expect.stringMatching(/^upstream refused \[redacted\] in .*\[redacted\]/) });
    expect((error as FdxApiError).headers["x-echo"]).toContain("[redacted]");
    expectNoForm(error, encodedForms(token, body));
  });

  it("in the error a custom fetch throws: FdxConnectionError's cause redacted", async () => {
    const token = await refreshToken();
    let body = "";
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      if (!url.endsWith("/token")) return globalThis.fetch(input, init);
      body = input instanceof Request ? await input.text() : String(init?.body);
      throw new TypeError(`fetch failed for ${b64(token)}`, { cause: new Error(`could not send ${b64(quoted(body))}`) });
    };
    const error = await rejectionOf(make({ fetch }).refresh(token));
    expect(error).toBeInstanceOf(FdxConnectionError);
    expect(((error as Error).cause as Error).message).toBe("fetch failed for [redacted]");
    expectNoForm(error, encodedForms(token, body));
  });
});
