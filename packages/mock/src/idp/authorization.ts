// The authorization endpoint: the sign-in and consent pages, bound to the
// browser that opened them. A browser gets an id cookie on its first visit;
// every form carries a ticket signed for that id and for the authorization
// request's parameters, so a form posted from another site (no cookie: it is
// SameSite=Lax) or with a field changed gets an error page and no code. A
// sign-in leaves a session cookie, which `prompt` and `max_age` are checked
// against (OpenID Connect Core §3.1.2.1).

import { SEED_DATA, ACCOUNT_PRODUCTS, CONSENT_PARTIES, type SandboxUser } from "../seed.js";
import type { ConsentGrant } from "../types.js";
import type { CookieJar } from "./cookies.js";
import { consentPage, errorPage, signInPage, type PageContext } from "./html.js";
import { randomToken } from "./jwt.js";
import { isRegisteredRedirectUri } from "./redirect-uris.js";
import type { SignedValues } from "./signed.js";
import type { Approval, IdpStore } from "./store.js";

/** How long a page's form stays good. */
const TICKET_TTL_MS = 10 * 60 * 1000;
/** The authorization request's parameters that the pages carry from step to step (and that a ticket covers). */
const AUTH_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "nonce",
  "code_challenge",
  "code_challenge_method",
  "connector",
  "prompt",
  "max_age",
  "login_hint",
];
const PROMPTS = new Set(["none", "login", "consent", "select_account"]);
const NOT_BOUND = "This form was not opened in this browser, or one of its fields was changed.";

export interface AuthorizationConfig {
  clientId: string;
  redirectUris: readonly string[];
  users: readonly SandboxUser[];
  codeTtlMs: number;
  /** The issuer named in callbacks (`iss`, RFC 9207). */
  issuer: string;
  /** The path the forms post to. */
  action: string;
  /** Names of the browser id cookie and the sign-in session cookie. */
  cookies: { browser: string; session: string };
}

interface AuthRequest {
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string | undefined;
  nonce: string | undefined;
  codeChallenge: string | undefined;
  connector: string;
  loginHint: string | undefined;
  prompt: ReadonlySet<string>;
  maxAgeMs: number | undefined;
  page: PageContext;
}

/** A sign-in in one browser. */
interface Session {
  id: string;
  username: string;
  /** When the user signed in (ms since the epoch). */
  authTimeMs: number;
}

/** What a form's ticket says: which step it is for, and for a consent form, who signed in. */
interface Ticket {
  kind: "sign-in" | "consent";
  id: string;
  session: Session | undefined;
  expires: number;
}

/** `GET` and `POST /auth` of one IdP. */
export class AuthorizationEndpoint {
  readonly #config: AuthorizationConfig;
  readonly #store: IdpStore;
  readonly #signed: SignedValues;

  constructor(config: AuthorizationConfig, store: IdpStore, signed: SignedValues) {
    this.#config = config;
    this.#store = store;
    this.#signed = signed;
  }

  /** The page a browser lands on, or (with `prompt=none`) the redirect back. */
  async page(params: URLSearchParams, jar: CookieJar): Promise<Response> {
    const request = this.#request(params);
    if (request instanceof Response) return request;
    let browser = jar.get(this.#config.cookies.browser);
    if (browser === undefined) {
      browser = randomToken();
      jar.set(this.#config.cookies.browser, browser);
    }
    const session = await this.#session(jar, browser);
    const signedIn =
      session !== undefined && !request.prompt.has("login") && (request.maxAgeMs === undefined || Date.now() - session.authTimeMs <= request.maxAgeMs);
    if (request.prompt.has("none")) {
      // Every approval here asks the user, so a signed-in browser still cannot approve without a page.
      const [error, description] = signedIn
        ? ["consent_required", "The user must approve on the consent page"]
        : ["login_required", "The user is not signed in"];
      return this.#redirect(request.redirectUri, { error, error_description: description, state: request.state });
    }
    if (!signedIn) return this.#signInPage(request, browser);
    return this.#consentPage(request, browser, session);
  }

  /** A form posted from one of the pages. */
  async step(form: URLSearchParams, jar: CookieJar): Promise<Response> {
    const request = this.#request(form);
    if (request instanceof Response) return request;
    const action = form.get("action");
    // Deny needs no proof of anything: it only sends the user back with an error.
    if (action === "deny")
      return this.#redirect(request.redirectUri, { error: "access_denied", error_description: "The user denied access", state: request.state });
    const browser = jar.get(this.#config.cookies.browser);
    if (browser === undefined) return errorPage(400, NOT_BOUND);
    if (action === "switch") return this.#signInPage(request, browser);
    if (action === "login") {
      const ticket = await this.#ticket(form, request, browser, "sign-in");
      if (ticket instanceof Response) return ticket;
      const user = this.#config.users.find((u) => u.username === form.get("username") && u.password === form.get("password"));
      if (!user) return this.#signInPage(request, browser, form.get("username") ?? undefined, "Wrong username or password.");
      const session: Session = { id: randomToken(16), username: user.username, authTimeMs: Date.now() };
      jar.set(this.#config.cookies.session, await this.#signed.sign([session.id, session.username, session.authTimeMs], ["session", browser]));
      return this.#consentPage(request, browser, session);
    }
    if (action === "approve") return this.#approval(form, request, browser);
    return this.#signInPage(request, browser, request.loginHint, "Please sign in, or press Deny.");
  }

  async #approval(form: URLSearchParams, request: AuthRequest, browser: string): Promise<Response> {
    const ticket = await this.#ticket(form, request, browser, "consent");
    if (ticket instanceof Response) return ticket;
    const session = ticket.session as Session;
    const user = this.#config.users.find((u) => u.username === session.username) as SandboxUser;
    const accounts = [...new Set(form.getAll("accounts"))];
    const page = { ...request.page, fields: { ...request.page.fields, ticket: form.get("ticket") as string } };
    if (accounts.length === 0) return consentPage(page, user.username, user.accounts, ACCOUNT_PRODUCTS, "Tick at least one account, or press Deny.");
    const foreign = accounts.find((account) => !user.accounts.includes(account));
    if (foreign !== undefined) return consentPage(page, user.username, user.accounts, ACCOUNT_PRODUCTS, `${foreign} is not one of your accounts.`);
    if (!this.#store.spendTicket(ticket.id, ticket.expires)) return errorPage(400, "This approval was already sent once.");
    const approval: Approval = {
      clientId: request.clientId,
      subject: user.username,
      accounts,
      connector: request.connector,
      scope: request.scope,
      authTime: Math.floor(session.authTimeMs / 1000),
      sessionId: session.id,
    };
    const code = this.#approve(approval, request);
    return this.#redirect(request.redirectUri, { code, state: request.state });
  }

  /**
   * The authorization request, or what to answer instead: an error page when
   * the client or redirect URI is wrong (never a redirect to an unchecked
   * URI, RFC 6749 §4.1.2.1), else an error redirect.
   */
  #request(params: URLSearchParams): AuthRequest | Response {
    const clientIds = params.getAll("client_id");
    const redirectUris = params.getAll("redirect_uri");
    if (clientIds.length !== 1) return errorPage(400, "The request must carry exactly one client_id.");
    const clientId = clientIds[0] as string;
    if (clientId !== this.#config.clientId) return errorPage(400, `Unknown client_id "${clientId}".`);
    if (redirectUris.length !== 1) return errorPage(400, "The request must carry exactly one redirect_uri.");
    const redirectUri = redirectUris[0] as string;
    if (!isRegisteredRedirectUri(redirectUri, this.#config.redirectUris)) {
      return errorPage(400, `The redirect_uri "${redirectUri}" is not registered for ${clientId}.`);
    }

    const state = params.get("state") ?? undefined;
    const fail = (error: string, description: string) => this.#redirect(redirectUri, { error, error_description: description, state });
    const repeated = AUTH_PARAMS.find((name) => params.getAll(name).length > 1);
    if (repeated) return fail("invalid_request", `The ${repeated} parameter is repeated`);
    const responseType = params.get("response_type");
    if (responseType === null) return fail("invalid_request", "response_type is required");
    if (responseType !== "code") return fail("unsupported_response_type", "Only response_type=code is supported");
    const scope = params.get("scope") ?? "";
    if (!scope.split(" ").includes("openid")) return fail("invalid_scope", "The scope must include openid");
    const codeChallenge = params.get("code_challenge") ?? undefined;
    const method = params.get("code_challenge_method");
    if (codeChallenge !== undefined || method !== null) {
      if (method !== "S256") return fail("invalid_request", "code_challenge_method must be S256");
      if (codeChallenge === undefined || !/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) {
        return fail("invalid_request", "code_challenge must be a base64url SHA-256 digest");
      }
    }
    const prompt = new Set((params.get("prompt") ?? "").split(" ").filter((value) => value !== ""));
    const unknownPrompt = [...prompt].find((value) => !PROMPTS.has(value));
    if (unknownPrompt !== undefined) return fail("invalid_request", `prompt=${unknownPrompt} is not supported`);
    if (prompt.has("none") && prompt.size > 1) return fail("invalid_request", "prompt=none cannot be combined with other values");
    const maxAge = params.get("max_age");
    if (maxAge !== null && !/^\d{1,10}$/.test(maxAge)) return fail("invalid_request", "max_age must be a number of seconds");
    // Any connector is taken (the id token names it); the seeded data live under the seed's provider id.
    const connector = params.get("connector") ?? SEED_DATA.providerId;
    if (connector === "") return fail("invalid_request", "connector must not be empty");
    const fields: Record<string, string> = {};
    for (const name of AUTH_PARAMS) {
      const value = params.get(name);
      if (value !== null) fields[name] = value;
    }
    return {
      clientId,
      redirectUri,
      scope,
      state,
      nonce: params.get("nonce") ?? undefined,
      codeChallenge,
      connector,
      loginHint: params.get("login_hint") ?? undefined,
      prompt,
      maxAgeMs: maxAge === null ? undefined : Number(maxAge) * 1000,
      page: { action: this.#config.action, clientId, fields },
    };
  }

  #redirect(redirectUri: string, params: Record<string, string | undefined>): Response {
    const location = new URL(redirectUri);
    for (const [name, value] of Object.entries(params)) if (value !== undefined) location.searchParams.set(name, value);
    location.searchParams.set("iss", this.#config.issuer); // RFC 9207
    return new Response(null, { status: 302, headers: { Location: location.href, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" } });
  }

  /** The browser's sign-in, if its session cookie is one this IdP set in this browser. */
  async #session(jar: CookieJar, browser: string): Promise<Session | undefined> {
    const cookie = jar.get(this.#config.cookies.session);
    const payload = cookie === undefined ? undefined : await this.#signed.read(cookie, ["session", browser]);
    if (!payload) return undefined;
    const [id, username, authTimeMs] = payload as [string, string, number];
    return this.#config.users.some((u) => u.username === username) ? { id, username, authTimeMs } : undefined;
  }

  /** What a ticket is bound to: the browser and every parameter of the authorization request. */
  #ticketContext(request: AuthRequest, browser: string): unknown[] {
    return ["ticket", browser, ...AUTH_PARAMS.map((name) => request.page.fields[name] ?? null)];
  }

  async #signInPage(request: AuthRequest, browser: string, username?: string, error?: string): Promise<Response> {
    const payload = ["sign-in", randomToken(16), null, Date.now() + TICKET_TTL_MS];
    const ticket = await this.#signed.sign(payload, this.#ticketContext(request, browser));
    return signInPage({ ...request.page, fields: { ...request.page.fields, ticket } }, this.#config.users, username ?? request.loginHint, error);
  }

  async #consentPage(request: AuthRequest, browser: string, session: Session): Promise<Response> {
    const payload = ["consent", randomToken(16), [session.id, session.username, session.authTimeMs], Date.now() + TICKET_TTL_MS];
    const ticket = await this.#signed.sign(payload, this.#ticketContext(request, browser));
    const user = this.#config.users.find((u) => u.username === session.username) as SandboxUser;
    return consentPage({ ...request.page, fields: { ...request.page.fields, ticket } }, user.username, user.accounts, ACCOUNT_PRODUCTS);
  }

  /** The form's ticket when it was made for this browser, this request and this step; else the page to answer. */
  async #ticket(form: URLSearchParams, request: AuthRequest, browser: string, kind: Ticket["kind"]): Promise<Ticket | Response> {
    const payload = await this.#signed.read(form.get("ticket") ?? "", this.#ticketContext(request, browser));
    if (!payload || payload[0] !== kind) return errorPage(400, NOT_BOUND);
    const [, id, who, expires] = payload as [Ticket["kind"], string, [string, string, number] | null, number];
    if (Date.now() > expires) return this.#signInPage(request, browser, request.loginHint, "This page expired. Please sign in again.");
    const session = who === null ? undefined : { id: who[0], username: who[1], authTimeMs: who[2] };
    return { kind, id, session, expires };
  }

  /** The approval: a consent grant of the ticked accounts and a code for it. */
  #approve(approval: Approval, request: AuthRequest): string {
    const consentId = `consent-${globalThis.crypto.randomUUID()}`;
    const grant: ConsentGrant = {
      id: consentId,
      status: "ACTIVE",
      parties: structuredClone(CONSENT_PARTIES),
      createdTime: new Date().toISOString(),
      resources: approval.accounts.map((account) => ({ resourceType: "ACCOUNT", resourceId: account, dataClusters: ["ACCOUNT_BASIC", "STATEMENTS"] })),
    };
    this.#store.grants.set(consentId, { ...approval, consentId, refreshToken: undefined });
    this.#store.state.consents.set(consentId, grant);
    this.#store.boundConsents();
    const code = randomToken();
    this.#store.addCode(code, {
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      nonce: request.nonce,
      consentId,
      expiresAt: Date.now() + this.#config.codeTtlMs,
    });
    this.#store.stats.codesIssued++;
    return code;
  }
}
