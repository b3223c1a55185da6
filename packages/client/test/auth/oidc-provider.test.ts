// A recipe: the SDK against oidc-provider, an OpenID-certified provider nobody
// here wrote, set up the way a bank network's IdP is (a confidential client
// with HTTP Basic, PKCE required, refresh tokens rotated on every use,
// revocation and introspection). The SDK is given only the options the docs
// tell a user to set: createAuthClient({ issuer, clientId, clientSecret,
// redirectUri }) and createConnections({ auth, store }), plus `bearer` where
// a resource server takes the access token.
import { generateKeyPairSync } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import Provider, { type Configuration, type KoaContextWithOIDC } from "oidc-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAuthClient,
  createConnections,
  FdxAuthError,
  FdxReauthorizationRequiredError,
  memoryConnectionStore,
  type AuthClient,
  type Connection,
  type Connections,
} from "../../src/auth/index.js";
import { createClient } from "../../src/index.js";
import { rejectionOf, startHttp, type RealServer } from "../support/http.js";

const CLIENT_ID = "budget-app";
const CLIENT_SECRET = "app-secret-Qm4x9";
const REDIRECT_URI = "http://127.0.0.1/callback";
/** The resource server's own client: it may only introspect. */
const RS_ID = "statements-api";
const RS_SECRET = "rs-secret-Lp2z7";

/** Lifetime of id and access tokens; the steps about expiry set 6 s. */
let tokenTtlS = 3600;
/** Refresh-token grants the provider answered (events), and every request it received. */
const seen = { refreshes: 0, refreshErrors: [] as string[], requests: [] as string[] };
/** The grant each signed-in user approved, by account id (what an IdP admin would destroy). */
const grants = new Map<string, string>();

let provider: Provider;
let idp: RealServer;
let rs: RealServer;
let auth: AuthClient;

function configuration(): Configuration {
  // An RSA key for RS256 id tokens (the provider's default algorithm).
  const jwk = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  return {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [REDIRECT_URI],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
      // No grants, no redirects: it only asks whether an access token is live.
      { client_id: RS_ID, client_secret: RS_SECRET, redirect_uris: [], grant_types: [], response_types: [], token_endpoint_auth_method: "client_secret_basic" },
    ],
    jwks: { keys: [{ ...jwk, kid: "k1", use: "sig", alg: "RS256" } as never] },
    cookies: { keys: ["cookie-key-for-the-test-only"] },
    pkce: { required: () => true },
    rotateRefreshToken: true,
    extraParams: ["connector"],
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      introspection: { enabled: true, allowedPolicy: async (_ctx, client) => client.clientAuthMethod !== "none" },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    ttl: {
      AccessToken: () => tokenTtlS,
      IdToken: () => tokenTtlS,
      AuthorizationCode: 60,
      RefreshToken: 86_400,
      Interaction: 600,
      Session: 3600,
      Grant: 86_400,
    },
  };
}

/** The bank's sign-in and consent pages, kept tiny: log in by name, then grant every scope asked for. */
async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (req.method === "GET") {
    const step = details.prompt.name === "login" ? "login" : "confirm";
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(`<form method="post" action="/interaction/${details.uid}/${step}"><input name="username"><button>Continue</button></form>`);
    return;
  }
  if (req.url!.endsWith("/login")) {
    const username = new URLSearchParams(await bodyOf(req)).get("username") ?? "";
    await provider.interactionFinished(req, res, { login: { accountId: username } }, { mergeWithLastSubmission: false });
    return;
  }
  const accountId = details.session!.accountId;
  const grant = details.grantId ? (await provider.Grant.find(details.grantId))! : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  const grantId = await grant.save();
  grants.set(accountId, grantId);
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return text;
}

/** A user's browser: follows redirects by hand, keeps cookies, fills the two forms; resolves the callback URL. */
async function approveInBrowser(authorizationUrl: string, username: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  let form: Record<string, string> | undefined;
  for (let hop = 0; hop < 12; hop++) {
    const response = await fetch(url, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; "),
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const [name = "", value = ""] = pair.trim().split(/=(.*)/s);
      const gone = value === "" || attributes.some((a) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(a));
      if (gone) jar.delete(name);
      else jar.set(name, value);
    }
    const location = response.headers.get("location");
    if (location) {
      url = new URL(location, url).href;
      form = undefined;
      if (url.startsWith(REDIRECT_URI)) return url;
      continue;
    }
    const html = await response.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
    if (response.status !== 200 || !action) throw new Error(`the provider answered ${response.status}: ${html.slice(0, 300)}`);
    url = new URL(action, url).href;
    form = action.endsWith("/login") ? { username } : {};
  }
  throw new Error("the authorization did not come back to the redirect URI");
}

/** The app's "Connect your bank" and its callback, with the documented calls only. */
async function connect(connections: Connections, id: string): Promise<Connection> {
  const request = await auth.authorizationUrl({ connector: "mikomo" });
  return connections.complete(id, await approveInBrowser(request.url, id), request);
}

/** Asks the provider whether a token is live, as a resource server does (RFC 7662). */
async function introspect(token: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${idp.url}/token/introspection`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`${RS_ID}:${RS_SECRET}`)}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token }).toString(),
  });
  return (await response.json()) as Record<string, unknown>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tokenRequests = () => seen.requests.filter((r) => r === "POST /token").length;

beforeAll(async () => {
  let handle: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
  idp = await startHttp((req, res) => handle(req, res));
  provider = new Provider(idp.url, configuration());
  provider.on("grant.success", (ctx: KoaContextWithOIDC) => {
    if (ctx.oidc.params?.grant_type === "refresh_token") seen.refreshes++;
  });
  provider.on("grant.error", (ctx: KoaContextWithOIDC, error: Error & { error_detail?: string }) => {
    if (ctx.oidc.params?.grant_type === "refresh_token") seen.refreshErrors.push(error.error_detail ?? error.message);
  });
  const callback = provider.callback();
  handle = (req, res) => {
    seen.requests.push(`${req.method} ${req.url}`);
    if (!req.url!.startsWith("/interaction/")) return void callback(req, res);
    interaction(req, res).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  };

  // A resource server that takes the provider's access token: it introspects every bearer and answers 200 or 401.
  rs = await startHttp((req, res) => {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    void (bearer ? introspect(bearer) : Promise.resolve<Record<string, unknown>>({ active: false })).then((answer) => {
      if (answer.active === true && answer.token_type === "Bearer" && answer.client_id === CLIENT_ID) {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ consentId: req.url!.split("/").pop(), status: "ACTIVE", subject: answer.sub }));
      } else {
        res.statusCode = 401;
        res.setHeader("www-authenticate", 'Bearer error="invalid_token"');
        res.end();
      }
    });
  });

  auth = createAuthClient({ issuer: idp.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI });
});
afterAll(async () => {
  await idp?.close();
  await rs?.close();
});

describe("the SDK against oidc-provider, configured as a bank network's IdP", () => {
  it("asks for consent when it asks for offline_access, so the provider issues a refresh token", async () => {
    const request = await auth.authorizationUrl({ connector: "mikomo" });
    const query = new URL(request.url).searchParams;
    expect(query.get("scope")).toBe("openid offline_access");
    expect(query.get("prompt")).toBe("consent");

    // With no prompt, a conforming provider drops offline_access (OpenID Connect Core §11): a typed error that says so, nothing stored.
    const store = memoryConnectionStore();
    const connections = createConnections({ auth, store });
    const bare = await auth.authorizationUrl({ connector: "mikomo", prompt: null });
    expect(new URL(bare.url).searchParams.has("prompt")).toBe(false);
    const error = await rejectionOf(connections.complete("no-prompt", await approveInBrowser(bare.url, "no-prompt"), bare));
    expect(error).toBeInstanceOf(FdxAuthError);
    expect(error).toMatchObject({ error: "no_refresh_token" });
    expect((error as FdxAuthError).message).toMatch(/openid/);
    expect((error as FdxAuthError).message).toMatch(/prompt/);
    expect(await store.get("no-prompt")).toBeUndefined();
  });

  it("completes a connection with the defaults", async () => {
    const connections = createConnections({ auth, store: memoryConnectionStore() });
    const connection = await connect(connections, "alice");
    expect(connection).toMatchObject({ id: "alice", status: "active", subject: "alice", issuer: idp.url, clientId: CLIENT_ID, version: 1 });
    expect(connection.refreshToken).not.toBe("");
    expect(connection.accessToken).not.toBe("");
    // The provider's own view of what it issued.
    expect(await introspect(connection.refreshToken)).toMatchObject({ active: true, sub: "alice", client_id: CLIENT_ID, scope: "openid offline_access" });
    expect(connection.expiresAt).toBeGreaterThan(Date.now() + 3_500_000);
  });

  it("token() hands out the id token it holds without asking the provider", async () => {
    const connections = createConnections({ auth, store: memoryConnectionStore() });
    const connection = await connect(connections, "bob");
    const before = seen.requests.length;
    const token = connections.token("bob");
    expect(await token()).toBe(connection.idToken);
    expect(await token()).toBe(connection.idToken);
    expect(seen.requests.length).toBe(before);
    const claims = JSON.parse(atob(connection.idToken.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))) as Record<string, unknown>;
    expect(claims).toMatchObject({ iss: idp.url, sub: "bob", aud: CLIENT_ID });
  });

  describe("with 6 s tokens", () => {
    beforeAll(() => {
      tokenTtlS = 6;
    });
    afterAll(() => {
      tokenTtlS = 3600;
    });

    it("refreshes an expired token once, and 50 concurrent callers of an expired connection cause 1 refresh", { timeout: 20_000 }, async () => {
      const connections = createConnections({ auth, store: memoryConnectionStore() });
      const carol = await connect(connections, "carol");
      const dave = await connect(connections, "dave");
      await sleep(Math.max(carol.expiresAt, dave.expiresAt) - Date.now() + 100);

      let refreshes = seen.refreshes;
      const fresh = await connections.token("carol")();
      expect(seen.refreshes - refreshes).toBe(1);
      expect(fresh).not.toBe(carol.idToken);
      const rotated = (await connections.get("carol"))!;
      expect(rotated.idToken).toBe(fresh);
      expect(rotated.expiresAt).toBeGreaterThan(Date.now());
      expect(rotated.refreshToken).not.toBe(carol.refreshToken);
      expect(await introspect(carol.refreshToken)).toMatchObject({ active: false });

      refreshes = seen.refreshes;
      const token = connections.token("dave");
      const tokens = await Promise.all(Array.from({ length: 50 }, () => token()));
      expect(seen.refreshes - refreshes).toBe(1);
      expect(new Set(tokens).size).toBe(1);
      expect(tokens[0]).not.toBe(dave.idToken);
      expect(seen.refreshErrors).toEqual([]);
    });

    it("refreshes 6 s tokens about twice a lifetime, not on every call", { timeout: 20_000 }, async () => {
      const connections = createConnections({ auth, store: memoryConnectionStore() });
      await connect(connections, "erin");
      const token = connections.token("erin");
      const refreshes = seen.refreshes;
      let calls = 0;
      for (const end = Date.now() + 12_000; Date.now() < end; calls++) {
        await token();
        await sleep(300);
      }
      const made = seen.refreshes - refreshes;
      expect(calls).toBeGreaterThan(30);
      expect(made).toBeGreaterThanOrEqual(1);
      expect(made).toBeLessThanOrEqual(5);
    });
  });

  it("a spent refresh token replayed ends the connection, and nothing more reaches the provider", async () => {
    const store = memoryConnectionStore();
    const connections = createConnections({ auth, store });
    const spent = await connect(connections, "frank");
    const current = await connections.refresh("frank");
    expect(current.refreshToken).not.toBe(spent.refreshToken);
    // A stale copy of the row comes back (a database restored from a backup): it holds the spent refresh token.
    expect(await store.compareAndSet("frank", current.version, { ...spent, version: current.version + 1 })).toBe(true);

    // An instance started on the restored database refreshes with it.
    const restarted = createConnections({ auth, store });
    const error = await rejectionOf(restarted.refresh("frank"));
    expect(error).toBeInstanceOf(FdxReauthorizationRequiredError);
    expect(error).toMatchObject({ connectionId: "frank", reason: "invalid_grant" });
    expect(seen.refreshErrors.at(-1)).toBe("refresh token already used");
    expect(await store.get("frank")).toMatchObject({ status: "reauthorization_required", idToken: "", refreshToken: "", accessToken: "" });
    // The provider treats the replay as theft and ends the whole grant: the newer token is dead too.
    expect(await introspect(current.refreshToken)).toMatchObject({ active: false });

    const before = seen.requests.length;
    expect(await rejectionOf(restarted.token("frank")())).toBeInstanceOf(FdxReauthorizationRequiredError);
    expect(await rejectionOf(restarted.refresh("frank"))).toBeInstanceOf(FdxReauthorizationRequiredError);
    expect(await rejectionOf(connections.refresh("frank"))).toMatchObject({ reason: "reauthorization_required" });
    expect(seen.requests.length).toBe(before);
  });

  it("a grant destroyed at the provider makes the connection reauthorization_required", async () => {
    const store = memoryConnectionStore();
    const connections = createConnections({ auth, store });
    const connection = await connect(connections, "grace");
    await (await provider.Grant.find(grants.get("grace")!))!.destroy();

    const error = await rejectionOf(connections.token("grace")({ rejected: connection.idToken, signal: undefined }));
    expect(error).toBeInstanceOf(FdxReauthorizationRequiredError);
    expect(error).toMatchObject({ connectionId: "grace", reason: "invalid_grant" });
    expect(seen.refreshErrors.at(-1)).toBe("grant not found");
    expect(await store.get("grace")).toMatchObject({ status: "reauthorization_required", idToken: "", refreshToken: "", accessToken: "" });
  });

  it("revoke() ends the grant at the provider and erases the tokens", async () => {
    const store = memoryConnectionStore();
    const connections = createConnections({ auth, store });
    const connection = await connect(connections, "heidi");
    const before = seen.requests.length;
    await connections.revoke("heidi");
    expect(seen.requests.slice(before)).toEqual(["POST /token/revocation"]);
    // Revoking the refresh token ends the provider's grant: the access token issued with it is dead too.
    expect(await introspect(connection.refreshToken)).toMatchObject({ active: false });
    expect(await introspect(connection.accessToken)).toMatchObject({ active: false });
    expect(await store.get("heidi")).toMatchObject({ status: "revoked", idToken: "", refreshToken: "", accessToken: "" });
    expect(await rejectionOf(connections.token("heidi")())).toMatchObject({ reason: "revoked" });
  });

  it('bearer: "access_token" lets a standard resource server, which introspects the access token, serve data calls', async () => {
    const connections = createConnections({ auth, store: memoryConnectionStore(), bearer: "access_token" });
    const connection = await connect(connections, "ivan");
    const client = createClient({ baseUrl: rs.url, token: connections.token("ivan") });
    expect(await client.consents.get("consent-1")).toEqual({ consentId: "consent-1", status: "ACTIVE", subject: "ivan" });

    // The id token is not a bearer such a server takes.
    const asIdToken = await fetch(`${rs.url}/consents/v1/consent-1`, { headers: { authorization: `Bearer ${connection.idToken}` } });
    expect(asIdToken.status).toBe(401);

    // The provider drops the access token before its time (revoking it would end the whole grant there):
    // the resource server's 401 makes the SDK refresh once, and the call goes through.
    await (await provider.AccessToken.find(connection.accessToken))!.destroy();
    expect(await introspect(connection.accessToken)).toMatchObject({ active: false });
    const refreshes = seen.refreshes;
    const tokens = tokenRequests();
    expect(await client.consents.get("consent-2")).toEqual({ consentId: "consent-2", status: "ACTIVE", subject: "ivan" });
    expect(seen.refreshes - refreshes).toBe(1);
    expect(tokenRequests() - tokens).toBe(1);
    const refreshed = (await connections.get("ivan"))!;
    expect(refreshed.accessToken).not.toBe(connection.accessToken);
    expect(await connections.token("ivan")()).toBe(refreshed.accessToken);
    expect(refreshed.accessTokenExpiresAt).toBeGreaterThan(Date.now() + 3_500_000);
  });
});
