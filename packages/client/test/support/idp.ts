// A small, hostile OpenID Connect IdP on 127.0.0.1 for the auth tests: it
// issues codes and rotating refresh tokens like the network's, and every
// error answer echoes everything it received (body, headers), so a test can
// check that no secret survives into an error. id tokens are unsigned JWTs
// (base64url JSON parts): the SDK reads claims without a signature check.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const CLIENT_ID = "client-Ünïcode id:1";
export const CLIENT_SECRET = "s3cr3t/Client+Secret=Value";
export const REDIRECT_URI = "http://127.0.0.1:9/callback";
export const ISSUER = "/sandbox";

export const b64url = (value: string | Uint8Array) => Buffer.from(value).toString("base64url");
export const jwt = (claims: Record<string, unknown>, header: Record<string, unknown> = { alg: "RS256", kid: "k1" }) =>
  `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}.${b64url("signature")}`;

interface Grant {
  sub: string;
  accounts: string[];
  connectorId: string;
  grantId: string;
  nonce: string | undefined;
  challenge: string | undefined;
  redirectUri: string;
  used: boolean;
}

/** What a test may do to one request to the token or revocation endpoint. */
export type Override = (
  req: { path: string; form: URLSearchParams; headers: Record<string, string | string[] | undefined> },
  res: ServerResponse,
) => boolean | Promise<boolean>;

export interface TestIdp {
  url: string;
  stats: { codesIssued: number; codesExchanged: number; refreshes: number; refreshesRejected: number; revocations: number; discoveries: number };
  /** Every request body received, as text (for "the request carried …" checks). */
  bodies: string[];
  headers: Record<string, string | string[] | undefined>[];
  revoked: string[];
  /** A code for an authorization request made by the SDK (its URL), as an approval would. */
  approve(authorizationUrl: string, grant?: Partial<Pick<Grant, "sub" | "accounts" | "connectorId" | "grantId">>): string;
  /** The callback URL an approval lands on. */
  callback(authorizationUrl: string, grant?: Partial<Pick<Grant, "sub" | "accounts" | "connectorId" | "grantId">>): string;
  /** Takes the next requests: return true when the override answered. */
  override: Override | undefined;
  /** Makes every token endpoint answer wait for `release()`. */
  hold(): { release(): void; waiting(): number };
  /** Claims every new id token gets on top (or instead: undefined deletes). */
  extraClaims: Record<string, unknown>;
  /** Fields every token answer gets on top (or instead: undefined deletes), e.g. `{ refresh_token: undefined, scope: "openid" }`. */
  extraAnswer: Record<string, unknown>;
  idTokenTtlS: number;
  /** The access token's `expires_in`; default: the id token's lifetime (at least 1 s, as a real provider sends). */
  accessTokenTtlS: number | undefined;
  /** Revokes every refresh token of a subject (the user revoked at the provider). */
  revokeSubject(sub: string): void;
  close(): Promise<void>;
}

export async function startIdp(options: { issuer?: string } = {}): Promise<TestIdp> {
  const issuer = options.issuer ?? ISSUER;
  const codes = new Map<string, Grant>();
  const live = new Map<string, Grant>();
  const spent = new Set<string>();
  let counter = 0;
  let gate: { promise: Promise<void>; release(): void; waiting: number } | undefined;

  const idp: TestIdp = {
    url: "",
    stats: { codesIssued: 0, codesExchanged: 0, refreshes: 0, refreshesRejected: 0, revocations: 0, discoveries: 0 },
    bodies: [],
    headers: [],
    revoked: [],
    override: undefined,
    extraClaims: {},
    extraAnswer: {},
    idTokenTtlS: 3600,
    accessTokenTtlS: undefined,
    approve(authorizationUrl, grant = {}) {
      const q = new URL(authorizationUrl).searchParams;
      const code = `code-${++counter}-${"c".repeat(20)}`;
      codes.set(code, {
        sub: grant.sub ?? "user-sub-1",
        accounts: grant.accounts ?? ["acct-1", "acct-2"],
        connectorId: grant.connectorId ?? q.get("connector") ?? "mikomo",
        grantId: grant.grantId ?? `grant-${counter}`,
        nonce: q.get("nonce") ?? undefined,
        challenge: q.get("code_challenge") ?? undefined,
        redirectUri: q.get("redirect_uri") ?? "",
        used: false,
      });
      idp.stats.codesIssued++;
      return code;
    },
    callback(authorizationUrl, grant) {
      const q = new URL(authorizationUrl).searchParams;
      const code = idp.approve(authorizationUrl, grant);
      const url = new URL(q.get("redirect_uri")!);
      url.searchParams.set("code", code);
      url.searchParams.set("state", q.get("state")!);
      url.searchParams.set("iss", issuer);
      return url.href;
    },
    hold() {
      let release!: () => void;
      const promise = new Promise<void>((resolve) => (release = resolve));
      const g = { promise, release: () => ((gate = undefined), release()), waiting: 0 };
      gate = g;
      return { release: g.release, waiting: () => g.waiting };
    },
    revokeSubject(sub) {
      for (const [token, grant] of live) {
        if (grant.sub === sub) {
          live.delete(token);
          spent.add(token);
        }
      }
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const issue = (grant: Grant, withNonce: boolean) => {
    const refreshToken = `rt-${++counter}-${"r".repeat(24)}`;
    live.set(refreshToken, grant);
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = {
      iss: issuer,
      sub: grant.sub,
      aud: CLIENT_ID,
      iat: now,
      exp: now + idp.idTokenTtlS,
      accounts: grant.accounts,
      connectorId: grant.connectorId,
      grant_id: grant.grantId,
      ...(withNonce && grant.nonce ? { nonce: grant.nonce } : {}),
      jti: counter,
    };
    for (const [k, v] of Object.entries(idp.extraClaims)) {
      if (v === undefined) delete claims[k];
      // A function is given the claims minted so far, so a claim can be set relative to `exp` without a race with the clock.
      else claims[k] = typeof v === "function" ? (v as (minted: Record<string, unknown>) => unknown)(claims) : v;
    }
    const answer: Record<string, unknown> = {
      access_token: `at-${counter}-${"a".repeat(24)}`,
      id_token: jwt(claims),
      refresh_token: refreshToken,
      token_type: "Bearer",
      expires_in: idp.accessTokenTtlS ?? Math.max(1, idp.idTokenTtlS),
    };
    for (const [k, v] of Object.entries(idp.extraAnswer)) {
      if (v === undefined) delete answer[k];
      else answer[k] = v;
    }
    return answer;
  };

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  // Hostile: an error answer repeats the whole request.
  const fail = (res: ServerResponse, status: number, error: string, description: string, form: string, req: IncomingMessage) =>
    json(res, status, { error, error_description: `${description} (you sent ${form} with ${JSON.stringify(req.headers)})`, echo: form, headers: req.headers });

  const clientOk = (req: IncomingMessage, form: URLSearchParams) => {
    const auth = req.headers.authorization;
    let id: string | null;
    let secret: string | null;
    if (auth?.startsWith("Basic ")) {
      const decoded = Buffer.from(auth.slice(6), "base64").toString("utf8");
      const i = decoded.indexOf(":");
      id = decodeURIComponent(decoded.slice(0, i).replace(/\+/g, " "));
      secret = decodeURIComponent(decoded.slice(i + 1).replace(/\+/g, " "));
    } else {
      id = form.get("client_id");
      secret = form.get("client_secret");
    }
    return id === CLIENT_ID && secret === CLIENT_SECRET;
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/.well-known/openid-configuration") {
      idp.stats.discoveries++;
      if (idp.override && (await idp.override({ path, form: new URLSearchParams(), headers: req.headers }, res))) return;
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${idp.url}/auth`,
        token_endpoint: `${idp.url}/token`,
        revocation_endpoint: `${idp.url}/revoke`,
        jwks_uri: `${idp.url}/keys`,
      });
    }
    idp.bodies.push(text);
    idp.headers.push(req.headers);
    const form = new URLSearchParams(text);
    if (gate && path === "/token") {
      gate.waiting++;
      await gate.promise;
    }
    if (idp.override && (await idp.override({ path, form, headers: req.headers }, res))) return;
    if (path === "/revoke") {
      if (!clientOk(req, form)) return fail(res, 401, "invalid_client", "bad client", text, req);
      const token = form.get("token") ?? "";
      idp.stats.revocations++;
      idp.revoked.push(token);
      live.delete(token);
      spent.add(token);
      res.writeHead(200).end();
      return;
    }
    if (path !== "/token") return fail(res, 404, "not_found", "no such endpoint", text, req);
    if (!clientOk(req, form)) return fail(res, 401, "invalid_client", "Client authentication failed", text, req);
    const grantType = form.get("grant_type");
    if (grantType === "authorization_code") {
      const code = form.get("code") ?? "";
      const grant = codes.get(code);
      if (!grant || grant.used) return fail(res, 400, "invalid_grant", "code unknown or used", text, req);
      grant.used = true;
      if (form.get("redirect_uri") !== grant.redirectUri) return fail(res, 400, "invalid_grant", "redirect_uri differs", text, req);
      const verifier = form.get("code_verifier") ?? "";
      const challenge = Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))).toString("base64url");
      if (grant.challenge && challenge !== grant.challenge) return fail(res, 400, "invalid_grant", "PKCE verification failed", text, req);
      idp.stats.codesExchanged++;
      return json(res, 200, issue(grant, true));
    }
    if (grantType === "refresh_token") {
      const token = form.get("refresh_token") ?? "";
      const grant = live.get(token);
      if (!grant) {
        idp.stats.refreshesRejected++;
        return json(res, 400, {
          error: "invalid_request",
          error_description: `Refresh token is invalid or has already been claimed by another client. (${text})`,
        });
      }
      live.delete(token);
      spent.add(token);
      idp.stats.refreshes++;
      return json(res, 200, issue(grant, false));
    }
    return fail(res, 400, "unsupported_grant_type", "what is this", text, req);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  idp.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return idp;
}

/** Every way an error could show a secret: message, stack, String(), JSON, util.inspect with its cause chain. */
export async function renderings(error: unknown): Promise<string> {
  const { inspect } = await import("node:util");
  const e = error as Error;
  let json = "";
  try {
    json = JSON.stringify(error);
  } catch {
    json = "";
  }
  return [String(error), e?.message, e?.stack, json, inspect(error, { depth: 10 })].join("\n");
}

/** Fails when any secret, or a 6-character piece of one, shows in `text`. */
export function expectClean(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) {
    if (!secret) continue;
    const forms = [secret, encodeURIComponent(secret), new URLSearchParams([["", secret]]).toString().slice(1), JSON.stringify(secret).slice(1, -1)];
    for (const form of forms) {
      if (text.includes(form)) throw new Error(`a secret shows in the error: ${form.slice(0, 4)}…`);
    }
  }
}
