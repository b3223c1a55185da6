// The auth entry's flow in a server runtime (Node, Bun, Deno, workerd,
// edge-runtime; never browsers: the entry holds a client secret), against
// the sandbox's identity provider that the harness started from Node:
// discovery, the authorization URL, the IdP's HTML forms driven over fetch as
// a user's browser would post them, the code exchange into an encrypted
// memory store (Web Crypto AES-GCM in this runtime), statements read with the
// user's token, a refresh, a revocation. Public API only, no Node built-ins.
// No step reports a token: the details go to the matrix's output.
import { createClient, FdxError, FdxNotFoundError } from "@fdxkit/client";
import { createAuthClient, createConnections, encryptConnectionStore, FdxAuthError, memoryConnectionStore } from "@fdxkit/client/auth";

import { AUTH_STEPS as STEPS } from "./steps.mjs";

/** A loopback callback the sandbox registers by default (matched on any port, RFC 8252); nothing listens there: the flow stops at the redirect. */
const REDIRECT_URI = "http://127.0.0.1/callback";
const CONNECTION_ID = "matrix-user";
const ENVELOPE = "fdxenc.v2.";

function check(condition, message) {
  if (!condition) throw new Error(message);
}

function describe(error) {
  if (error instanceof Error) return `${error.constructor?.name ?? error.name}: ${error.message}`;
  return String(error);
}

const ENTITIES = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };
const unescapeHtml = (text) => text.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]);

/** What a browser would post back from the IdP's page: the form's action, its hidden fields, and the account checkboxes. */
function readForm(html, pageUrl) {
  const action = /<form method="post" action="([^"]*)">/.exec(html);
  check(action, `no form on the page: ${html.slice(0, 200)}`);
  const inputs = (type) =>
    [...html.matchAll(new RegExp(`<input type="${type}"[^>]* name="([^"]*)" value="([^"]*)"`, "g"))].map(([, n, v]) => [unescapeHtml(n), unescapeHtml(v)]);
  return {
    action: new URL(unescapeHtml(action[1]), pageUrl).href,
    hidden: inputs("hidden"),
    accounts: inputs("checkbox")
      .filter(([n]) => n === "accounts")
      .map(([, v]) => v),
  };
}

// The IdP binds its forms to the browser that opened them (a cookie checked with the form's ticket): keep its
// cookies as a browser does.
const jar = new Map();
function remember(response) {
  const lines =
    typeof response.headers.getSetCookie === "function"
      ? response.headers.getSetCookie()
      : (response.headers.get("set-cookie") ?? "").split(/,(?=\s*[^;=\s]+=)/);
  for (const line of lines) {
    const pair = line.split(";")[0];
    const at = pair.indexOf("=");
    if (at > 0) jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
  }
  return response;
}
const cookies = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");

async function getPage(url) {
  return remember(await fetch(url, { redirect: "manual", headers: jar.size ? { cookie: cookies() } : {} }));
}

async function postForm(action, fields) {
  const response = remember(
    await fetch(action, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...(jar.size ? { cookie: cookies() } : {}) },
      body: new URLSearchParams(fields).toString(),
      redirect: "manual",
    }),
  );
  return response;
}

async function rejectionOf(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("it did not fail");
}

function base64(bytes) {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/**
 * Runs the auth flow; resolves with one entry per step of `AUTH_STEPS`
 * (`{ name, ok, detail?, error? }`), never rejects. A step whose
 * predecessor failed fails too, naming it.
 *
 * config: { baseUrl, productsUrl, token, auth: { idpUrl, clientId,
 *   clientSecret, username, password } }
 */
export async function runAuthSteps(config) {
  const { baseUrl, productsUrl, token } = config;
  const { idpUrl, clientId, clientSecret, username, password } = config.auth ?? {};
  const steps = [];
  let failed;
  const step = async (name, fn) => {
    if (failed) {
      steps.push({ name, ok: false, error: `not run: "${failed}" failed` });
      return;
    }
    try {
      steps.push({ name, ok: true, detail: (await fn()) ?? "" });
    } catch (error) {
      failed = name;
      steps.push({ name, ok: false, error: describe(error) });
    }
  };

  const service = createClient({ baseUrl, productsUrl, token });
  let auth;
  let request;
  let callbackUrl;
  let granted;
  let notGranted;
  let inner;
  let connections;
  let connection;

  await step(STEPS[0], async () => {
    check(idpUrl && clientId && clientSecret, "the harness passed no IdP (config.auth)");
    auth = createAuthClient({ issuer: idpUrl, clientId, clientSecret, redirectUri: REDIRECT_URI });
    const issuer = await auth.issuer();
    request = await auth.authorizationUrl({ connector: config.providerId });
    const url = new URL(request.url);
    const q = url.searchParams;
    check(url.href.startsWith(idpUrl), `authorization endpoint ${url.origin}${url.pathname} is not the IdP's`);
    check(q.get("response_type") === "code" && q.get("client_id") === clientId && q.get("redirect_uri") === REDIRECT_URI, `query ${q}`);
    check(q.get("code_challenge_method") === "S256" && /^[A-Za-z0-9_-]{43}$/.test(q.get("code_challenge") ?? ""), "no PKCE S256 challenge");
    check(
      q.get("state") === request.state && q.get("nonce") === request.nonce && request.state.length >= 22 && request.nonce.length >= 22,
      "state or nonce missing or short",
    );
    check(/^[A-Za-z0-9._~-]{43,128}$/.test(request.codeVerifier), "code verifier out of RFC 7636's alphabet or length");
    return `issuer ${issuer}, ${url.origin}${url.pathname}`;
  });

  await step(STEPS[1], async () => {
    const signIn = await getPage(request.url);
    check(signIn.status === 200 && (signIn.headers.get("content-type") ?? "").startsWith("text/html"), `GET the authorization URL answered ${signIn.status}`);
    const first = readForm(await signIn.text(), request.url);
    let consent = await postForm(first.action, [...first.hidden, ["username", username], ["password", password], ["action", "login"]]);
    // A sign-in may answer the consent page, or redirect to it.
    if (consent.status === 302 || consent.status === 303) {
      await consent.body?.cancel();
      consent = await getPage(new URL(consent.headers.get("location"), first.action).href);
    }
    check(consent.status === 200, `the sign-in answered ${consent.status}`);
    const second = readForm(await consent.text(), first.action);
    check(second.accounts.length >= 2, `the consent page offers ${second.accounts.length} accounts`);
    // Only the first is ticked: the user's token must then reach that account and no other.
    [granted, notGranted] = second.accounts;
    const approved = await postForm(second.action, [...second.hidden, ["accounts", granted], ["action", "approve"]]);
    await approved.body?.cancel();
    check(approved.status === 302 || approved.status === 303, `the approval answered ${approved.status}, not a redirect`);
    callbackUrl = approved.headers.get("location");
    const back = new URL(callbackUrl);
    check(
      `${back.origin}${back.pathname}` === REDIRECT_URI && back.searchParams.get("state") === request.state && back.searchParams.has("code"),
      "the redirect is not the callback with code and state",
    );
    return `signed in as ${username}, approved ${granted} of ${second.accounts.length} accounts, redirected to ${back.origin}${back.pathname}`;
  });

  await step(STEPS[2], async () => {
    inner = memoryConnectionStore();
    const store = encryptConnectionStore(inner, { keys: { k1: base64(crypto.getRandomValues(new Uint8Array(32))) }, current: "k1" });
    connections = createConnections({ auth, store });
    const { state, codeVerifier, nonce } = request;
    connection = await connections.complete(CONNECTION_ID, callbackUrl, { state, codeVerifier, nonce });
    check(connection.status === "active" && connection.version === 1, `status ${connection.status}, version ${connection.version}`);
    check(connection.accounts.length === 1 && connection.accounts[0] === granted, `accounts ${connection.accounts}, ticked ${granted}`);
    check(connection.idToken.split(".").length === 3 && connection.refreshToken.length > 0, "no id token (JWT) or refresh token");
    check(connection.expiresAt > Date.now() && typeof connection.consentId === "string", "no future expiry or no consent id");
    const raw = await inner.get(CONNECTION_ID);
    for (const field of ["idToken", "refreshToken"]) {
      check(raw[field].startsWith(ENVELOPE) && !raw[field].includes(connection[field]), `the stored ${field} is not an encrypted envelope`);
    }
    const again = await connections.get(CONNECTION_ID);
    check(again.idToken === connection.idToken && again.refreshToken === connection.refreshToken, "the store does not decrypt to the tokens written");
    const grant = await service.consents.get(connection.consentId);
    check(grant.status === "ACTIVE", `consent ${grant.id} is ${grant.status}`);
    return `connection ${connection.id} of ${connection.subject}, consent ${grant.id} ${grant.status}, tokens stored as AES-GCM envelopes`;
  });

  const user = () => service.withOptions({ token: connections.token(CONNECTION_ID) });
  const readAsUser = async () => {
    const statements = await user()
      .statements.list({ providerId: connection.connector ?? config.providerId, accountId: granted, limit: 5 })
      .toArray({ max: 5 });
    check(statements.length > 0, `no statements of ${granted}`);
    return statements.length;
  };

  await step(STEPS[3], async () => {
    const read = await readAsUser();
    // The service token reads any account; the user's token only the granted one.
    const outside = await rejectionOf(user().statements.list({ providerId: config.providerId, accountId: notGranted, limit: 1 }).toArray({ max: 1 }));
    check(outside instanceof FdxNotFoundError, `an account outside the grant: ${describe(outside)}`);
    return `${read} statements of ${granted}; ${notGranted} (not granted) 404 ${outside.code}`;
  });

  await step(STEPS[4], async () => {
    const before = await connections.get(CONNECTION_ID);
    const after = await connections.refresh(CONNECTION_ID);
    check(after.status === "active" && after.version > before.version && !after.lease, `status ${after.status}, version ${before.version} → ${after.version}`);
    check(after.refreshToken !== before.refreshToken && after.refreshToken.length > 0, "the refresh token was not rotated");
    check(after.subject === before.subject && after.accounts.join() === before.accounts.join(), "the refresh changed the subject or accounts");
    const raw = await inner.get(CONNECTION_ID);
    check(raw.version === after.version && raw.refreshToken.startsWith(ENVELOPE), "the new pair is not stored encrypted");
    const spent = await rejectionOf(auth.refresh(before.refreshToken));
    check(spent instanceof FdxAuthError && spent.error === "invalid_request" && spent.status === 400, `the spent refresh token: ${describe(spent)}`);
    check(spent instanceof FdxError, "FdxAuthError is no FdxError");
    const read = await readAsUser();
    return `version ${before.version} → ${after.version}, rotated; the spent one answers 400 ${spent.error}; ${read} statements with the new token`;
  });

  await step(STEPS[5], async () => {
    const last = await connections.get(CONNECTION_ID);
    await connections.revoke(CONNECTION_ID);
    const revoked = await connections.get(CONNECTION_ID);
    check(revoked.status === "revoked" && revoked.idToken === "" && revoked.refreshToken === "", `status ${revoked.status}, tokens kept`);
    const raw = await inner.get(CONNECTION_ID);
    // Empty tokens are sealed too (so a revoked row's columns stay bound): the raw row holds envelopes of "".
    check(raw.status === "revoked" && raw.idToken.startsWith(ENVELOPE) && raw.refreshToken.startsWith(ENVELOPE), "the revoked row's tokens are not sealed");
    const atIdp = await rejectionOf(auth.refresh(last.refreshToken));
    check(atIdp instanceof FdxAuthError && atIdp.status === 400, `the revoked refresh token: ${describe(atIdp)}`);
    const noToken = await rejectionOf(connections.token(CONNECTION_ID)());
    check(noToken instanceof FdxError, `token() of a revoked connection: ${describe(noToken)}`);
    return `revoked; the IdP refuses its refresh token (${atIdp.error}); token() throws ${noToken.name}`;
  });

  return steps;
}
