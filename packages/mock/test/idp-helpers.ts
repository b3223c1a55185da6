// What an app and a browser do against the sandbox IdP, written here apart
// from the mock's own code: an authorization URL with PKCE, the HTML forms
// read and posted as a browser posts them, and the token endpoint's calls.
import { createHash, randomBytes } from "node:crypto";
import { expect } from "vitest";

export const CALLBACK = "http://127.0.0.1:8123/callback";

export interface IdpTarget {
  idpUrl: string;
  clientId: string;
  clientSecret: string;
}

export interface AuthorizationRequest {
  url: string;
  state: string;
  nonce: string;
  verifier: string;
}

const b64url = (bytes: Buffer) => bytes.toString("base64url");

/** An authorization URL as an OIDC client builds it; `params` override or (with `null`) drop parameters. */
export function authorizationRequest(idp: IdpTarget, params: Record<string, string | null> = {}): AuthorizationRequest {
  const state = b64url(randomBytes(16));
  const nonce = b64url(randomBytes(16));
  const verifier = b64url(randomBytes(32));
  const all: Record<string, string | null> = {
    response_type: "code",
    client_id: idp.clientId,
    redirect_uri: CALLBACK,
    scope: "openid offline_access",
    state,
    nonce,
    code_challenge: b64url(createHash("sha256").update(verifier).digest()),
    code_challenge_method: "S256",
    connector: "sandbox-bank",
    ...params,
  };
  const url = new URL(`${idp.idpUrl}/auth`);
  for (const [name, value] of Object.entries(all)) if (value !== null) url.searchParams.append(name, value);
  return { url: url.href, state, nonce, verifier };
}

const decode = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[name] as string);

function attributes(tag: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [, name = "", value = ""] of tag.matchAll(/([\w-]+)="([^"]*)"/g)) found[name] = decode(value);
  for (const [, name = ""] of tag.matchAll(/\s([\w-]+)(?=[\s>])/g)) found[name] ??= "";
  return found;
}

/** The page's form as a browser sees it: where it posts, and its inputs. */
export function readForm(html: string) {
  const form = /<form([^>]*)>([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error(`no form in:\n${html}`);
  const inputs = [...(form[2] as string).matchAll(/<input[^>]*>/g)].map(([tag]) => attributes(tag));
  return { action: attributes(form[1] as string).action as string, method: attributes(form[1] as string).method, inputs };
}

/**
 * A browser as far as the IdP can tell: it keeps the cookies it is given
 * (by name; the tests talk to one IdP at a time), sends them back, and does
 * not follow redirects, so the test sees each one.
 */
export class Browser {
  readonly cookies = new Map<string, string>();
  /** Every Set-Cookie line received, as sent. */
  readonly setCookies: string[] = [];

  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set("Cookie", [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      this.setCookies.push(line);
      const [pair = "", ...attributes] = line.split(";");
      const name = pair.slice(0, pair.indexOf("=")).trim();
      if (attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(pair.indexOf("=") + 1).trim());
    }
    return response;
  }

  /**
   * Submits the page's form as a browser does: hidden fields, checked boxes,
   * the given text fields and the pressed button's name=value.
   */
  submit(pageUrl: string, html: string, fill: Record<string, string>, button: string, boxes?: string[]): Promise<Response> {
    return this.fetch(new URL(readForm(html).action, pageUrl), formPost(formBody(html, fill, button, boxes)));
  }
}

/** The body a browser posts for the page's form. */
export function formBody(html: string, fill: Record<string, string>, button: string, boxes?: string[]): URLSearchParams {
  const { method, inputs } = readForm(html);
  expect(method).toBe("post");
  const body = new URLSearchParams();
  for (const input of inputs) {
    const name = input.name as string;
    if (input.type === "hidden") body.append(name, input.value as string);
    else if (input.type === "checkbox") {
      if (boxes ? boxes.includes(input.value as string) : "checked" in input) body.append(name, input.value as string);
    } else if (name in fill) body.append(name, fill[name] as string);
  }
  body.append("action", button);
  return body;
}

/** A form post's request options. */
export const formPost = (body: URLSearchParams): RequestInit => ({
  method: "POST",
  headers: { "Content-Type": "application/x-www-form-urlencoded" },
  body,
  redirect: "manual",
});

/** In a new browser (unless given one): GET the sign-in page, sign in, tick, approve: the Location the browser would follow. */
export async function approveInBrowser(
  request: AuthorizationRequest,
  options: { username?: string; password?: string; accounts?: string[] } = {},
  browser = new Browser(),
): Promise<string> {
  const signIn = await browser.fetch(request.url);
  expect(signIn.status).toBe(200);
  const consent = await browser.submit(
    request.url,
    await signIn.text(),
    { username: options.username ?? "user_good", password: options.password ?? "pass_good" },
    "login",
  );
  expect(consent.status).toBe(200);
  const approved = await browser.submit(request.url, await consent.text(), {}, "approve", options.accounts);
  expect(approved.status).toBe(302);
  return approved.headers.get("Location") as string;
}

/** A POST to the token (or revocation) endpoint, with Basic client authentication unless told otherwise. */
export function post(
  idp: IdpTarget,
  endpoint: "token" | "revoke",
  params: Record<string, string>,
  auth: "basic" | "post" | "none" | { id: string; secret: string } = "basic",
): Promise<Response> {
  const body = new URLSearchParams(params);
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  if (auth === "post") {
    body.set("client_id", idp.clientId);
    body.set("client_secret", idp.clientSecret);
  } else if (auth !== "none") {
    const { id, secret } = auth === "basic" ? { id: idp.clientId, secret: idp.clientSecret } : auth;
    const form = (text: string) => encodeURIComponent(text).replaceAll("%20", "+");
    headers.Authorization = `Basic ${Buffer.from(`${form(id)}:${form(secret)}`).toString("base64")}`;
  }
  return fetch(`${idp.idpUrl}/${endpoint}`, { method: "POST", headers, body });
}

export interface TokenAnswer {
  access_token: string;
  scope: string;
  id_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
}

/** Exchanges the code of a callback URL; expects success. */
export async function exchange(idp: IdpTarget, callback: string, request: AuthorizationRequest): Promise<TokenAnswer> {
  const code = new URL(callback).searchParams.get("code") as string;
  const response = await post(idp, "token", { grant_type: "authorization_code", code, redirect_uri: CALLBACK, code_verifier: request.verifier });
  expect(response.status).toBe(200);
  return (await response.json()) as TokenAnswer;
}

/** The claims of a JWT, read without checking it. */
export function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split(".")[1] as string, "base64url").toString("utf8"));
}
