// The "connect your bank" app: a node:http request listener, server-rendered
// HTML, no framework. server.mjs wires it to a client, an auth client and a
// connection manager (the sandbox's or a real network's).
//
// Nothing lives in the process's memory, so any number of instances can
// serve the same users behind a load balancer: the session is a signed
// cookie (session.mjs), the login in progress is a sealed cookie any
// instance holding the keys can open, and connections live in the store
// the instances share. Each session is one app user, so the user's bank
// connection is stored under the session's user id.
import { timingSafeEqual } from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { FdxApiError } from "@fdxkit/client";
import { FdxAuthError, FdxReauthorizationRequiredError, openAuthorization, sealAuthorization } from "@fdxkit/client/auth";
import { createSessions, readCookie, serializeCookie, SESSION_COOKIE } from "./session.mjs";

/** The login in progress, sealed; sent only to the callback. */
const LOGIN_COOKIE = "connect_bank_login";
const LOGIN_TTL_MS = 600_000;
/** A one-time message for the next page, as one of the codes of NOTICES (never free text: anyone can set a cookie value). */
const NOTICE_COOKIE = "connect_bank_notice";
/** @type {Record<string, string>} */
const NOTICES = {
  disconnected: "Disconnected: this app can no longer read your statements.",
  disconnected_here: "Disconnected here, but the bank could not be told. You can end the access at your bank too.",
};
const ENDED = "Your bank connection has ended. Reconnect your bank to see your statements.";
/** A form body larger than this is refused: the app's forms carry one token. */
const MAX_FORM_BYTES = 4096;
/** The most recent statements shown per account (one page request each). */
const STATEMENTS_SHOWN = 6;

/** @typedef {import("./session.mjs").Session} Session */

/**
 * @typedef {object} AppOptions
 * @property {import("@fdxkit/client").FdxClient} client a client with the service token; user calls go through `withOptions`
 * @property {import("@fdxkit/client/auth").AuthClient} auth
 * @property {import("@fdxkit/client/auth").Connections} connections
 * @property {string} connector the connector (bank) to ask the IdP for
 * @property {string} publicUrl the app's own origin as the browser sees it, e.g. http://127.0.0.1:3000 (the redirect URI is publicUrl + /callback)
 * @property {string} sessionSecret signs the session cookie; every instance has the same one
 * @property {{ keys: Record<string, string>; current: string }} loginKeys seal the login in progress; every instance has the same ones
 * @property {(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void} [webhooks] the listener for POST /webhooks
 */

/**
 * The app's request listener.
 * @param {AppOptions} options
 * @returns {(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void}
 */
export function createConnectBankApp({ client, auth, connections, connector, publicUrl, sessionSecret, loginKeys, webhooks }) {
  const origin = new URL(publicUrl);
  const secure = origin.protocol === "https:";
  const sessions = createSessions({ secret: sessionSecret, secure });

  /**
   * The request's session, made (and its cookie set) when there is none or it is not one this app signed.
   * @param {import("node:http").IncomingMessage} req
   * @param {import("node:http").ServerResponse} res
   * @returns {Session}
   */
  function session(req, res) {
    const found = sessions.read(readCookie(req.headers.cookie, SESSION_COOKIE));
    if (found) return found;
    const { session: created, setCookie } = sessions.issue();
    res.appendHeader("Set-Cookie", setCookie);
    return created;
  }

  /**
   * The one-time notice the previous request left, cleared as it is read.
   * @param {import("node:http").IncomingMessage} req
   * @param {import("node:http").ServerResponse} res
   * @returns {string | undefined}
   */
  function takeNotice(req, res) {
    const code = readCookie(req.headers.cookie, NOTICE_COOKIE);
    if (code === undefined) return undefined;
    res.appendHeader("Set-Cookie", serializeCookie(NOTICE_COOKIE, "", { secure, maxAgeSeconds: 0 }));
    return Object.hasOwn(NOTICES, code) ? NOTICES[code] : undefined;
  }

  /**
   * @param {import("node:http").ServerResponse} res
   * @param {keyof typeof NOTICES} code
   */
  function leaveNotice(res, code) {
    res.appendHeader("Set-Cookie", serializeCookie(NOTICE_COOKIE, code, { secure, maxAgeSeconds: 60 }));
  }

  /** @param {import("node:http").ServerResponse} res */
  function clearLogin(res) {
    res.appendHeader("Set-Cookie", serializeCookie(LOGIN_COOKIE, "", { secure, path: "/callback", maxAgeSeconds: 0 }));
  }

  /** @type {Record<string, (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse, s: Session, url: URL) => Promise<void>>} */
  const routes = {
    "GET /": async (req, res, s) => {
      const notice = takeNotice(req, res);
      // Read from the shared store: an instance that received the revocation webhook, or completed the login, wrote it there.
      const connection = await connections.get(s.userId);
      if (connection?.status !== "active") {
        return sendPage(res, 200, "Connect your bank", connectForm(s, notice ?? (connection ? ENDED : undefined)));
      }
      try {
        const sections = await accountSections(connection, s);
        return sendPage(res, 200, "Your accounts", `${noticeHtml(notice)}${sections}${disconnectForm(s)}`);
      } catch (error) {
        if (!(error instanceof FdxReauthorizationRequiredError)) throw error;
        // The bank refused the connection's refresh (revoked at the bank, expired): the user connects again.
        return sendPage(res, 200, "Connect your bank", connectForm(s, ENDED));
      }
    },

    "POST /connect": async (req, res, s) => {
      if (!(await csrfOk(req, s)))
        return sendPage(res, 403, "Forbidden", '<p>This form has expired. Go back to the <a href="/">home page</a> and try again.</p>');
      const { url, state, nonce, codeVerifier } = await auth.authorizationUrl({ connector });
      // Sealed for this user only: the callback opens it with the user id from its own session cookie.
      const sealed = await sealAuthorization({ state, nonce, codeVerifier }, { connectionId: s.userId, ...loginKeys, ttlMs: LOGIN_TTL_MS });
      res.appendHeader("Set-Cookie", serializeCookie(LOGIN_COOKIE, sealed, { secure, path: "/callback", maxAgeSeconds: LOGIN_TTL_MS / 1000 }));
      redirect(res, url);
    },

    "GET /callback": async (req, res, s, url) => {
      const sealed = readCookie(req.headers.cookie, LOGIN_COOKIE);
      if (!sealed) return sendPage(res, 400, "Nothing to complete", `<p>No bank connection was in progress in this browser.</p>${homeLink()}`);
      // One use: a reload of the callback, or a second tab's, finds nothing to complete.
      clearLogin(res);
      let pending;
      try {
        pending = await openAuthorization(sealed, { connectionId: s.userId, keys: loginKeys.keys });
      } catch (error) {
        // Expired, tampered, sealed with a retired key or for another user: nothing is sent to the IdP.
        if (!(error instanceof FdxAuthError)) throw error;
        return sendPage(
          res,
          400,
          "Could not connect",
          `<p>This bank connection was started too long ago, or in another browser. Start again from the home page.</p>${homeLink()}`,
        );
      }
      try {
        await connections.complete(s.userId, url, pending);
      } catch (error) {
        if (error instanceof FdxAuthError && error.error === "access_denied") {
          return sendPage(res, 200, "You did not connect", `<p>You did not connect your bank: nothing was shared with this app.</p>${homeLink()}`);
        }
        if (error instanceof FdxAuthError) {
          return sendPage(res, 400, "Could not connect", `<p>The bank's answer could not be used: ${escapeHtml(error.message)}</p>${homeLink()}`);
        }
        throw error;
      }
      // Post/Redirect/Get: the code stays out of the page the user reloads or bookmarks.
      redirect(res, "/");
    },

    "POST /disconnect": async (req, res, s) => {
      if (!(await csrfOk(req, s)))
        return sendPage(res, 403, "Forbidden", '<p>This form has expired. Go back to the <a href="/">home page</a> and try again.</p>');
      try {
        await connections.revoke(s.userId);
        leaveNotice(res, "disconnected");
      } catch (error) {
        // revoke() erases the tokens here even when the bank could not be told; why goes to the log.
        console.error("the IdP did not take the revocation:", error instanceof Error ? error.message : error);
        leaveNotice(res, "disconnected_here");
      }
      redirect(res, "/");
    },
  };

  /**
   * @param {import("@fdxkit/client/auth").Connection} connection
   * @param {Session} s
   */
  async function accountSections(connection, s) {
    const user = client.withOptions({ token: connections.token(s.userId) });
    const providerId = providerOf(connection);
    const sections = await Promise.all(
      connection.accounts.map(async (accountId) => {
        /** @type {string} */
        let body;
        try {
          /** @type {import("@fdxkit/client").Statement[]} */
          const statements = [];
          for await (const statement of user.statements.list({ providerId, accountId, limit: STATEMENTS_SHOWN })) {
            statements.push(statement);
            if (statements.length === STATEMENTS_SHOWN) break;
          }
          body = statementTable(accountId, statements);
        } catch (error) {
          // One account's error (no statements yet: 404 1108) is shown in its section; the others still list.
          if (!(error instanceof FdxApiError) || error.status === 401) throw error;
          body = `<p class="muted">${escapeHtml(error.message)}</p>`;
        }
        return `<section><h2>Account ${escapeHtml(accountId)}</h2>${body}</section>`;
      }),
    );
    return `<p>Connected to <strong>${escapeHtml(providerId)}</strong>. You shared ${connection.accounts.length} account${connection.accounts.length === 1 ? "" : "s"}; the ${STATEMENTS_SHOWN} most recent statements of each:</p>${sections.join("")}`;
  }

  /**
   * GET /accounts/{accountId}/statements/{statementId}: the PDF, streamed from the API to the browser.
   * @param {import("node:http").IncomingMessage} _req
   * @param {import("node:http").ServerResponse} res
   * @param {Session} s
   * @param {string} accountId
   * @param {string} statementId
   * @param {URL} url
   */
  async function download(_req, res, s, accountId, statementId, url) {
    const connection = await connections.get(s.userId);
    // Only the accounts this user shared: the ids come from the URL, so anyone can type them.
    if (connection?.status !== "active" || !connection.accounts.includes(accountId))
      return sendPage(res, 404, "Not found", `<p>No such statement.</p>${homeLink()}`);
    const abort = new AbortController();
    res.once("close", () => abort.abort());
    const user = client.withOptions({ token: connections.token(s.userId) });
    /** @type {import("@fdxkit/client").StatementDocument} */
    let document;
    try {
      document = await user.statements.download({ providerId: providerOf(connection), accountId, statementId }, { signal: abort.signal });
    } catch (error) {
      if (error instanceof FdxApiError && error.status !== 401) {
        return sendPage(res, error.status === 404 ? 404 : 502, "Statement unavailable", `<p>${escapeHtml(error.message)}</p>${homeLink()}`);
      }
      throw error;
    }
    const date = url.searchParams.get("date");
    const filename = date && /^\d{4}-\d{2}-\d{2}$/.test(date) ? `statement-${accountId.replace(/[^A-Za-z0-9-]/g, "_")}-${date}.pdf` : "statement.pdf";
    res.writeHead(200, {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${filename}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      ...(document.contentLength !== undefined ? { "Content-Length": String(document.contentLength) } : {}),
    });
    // Streamed: the app never holds a whole document in memory.
    await pipeline(Readable.fromWeb(/** @type {import("node:stream/web").ReadableStream<Uint8Array>} */ (document.body)), res).catch(() => res.destroy());
  }

  /**
   * The provider whose statements to read: the id token's `connectorId`, else (an IdP that names none) the one asked for.
   * @param {import("@fdxkit/client/auth").Connection} connection
   */
  function providerOf(connection) {
    return connection.connector ?? connector;
  }

  /**
   * @param {import("node:http").IncomingMessage} req
   * @param {Session} s
   */
  async function csrfOk(req, s) {
    const form = await readForm(req);
    const sent = Buffer.from(form?.get("csrf") ?? "");
    const expected = Buffer.from(s.csrf);
    return sent.length === expected.length && timingSafeEqual(sent, expected);
  }

  /**
   * @param {Session} s
   * @param {string | undefined} notice
   */
  function connectForm(s, notice) {
    return `${noticeHtml(notice)}<p>See your bank statements here: connect your bank, choose the accounts to share, and approve at your bank.</p>
<form method="post" action="/connect"><input type="hidden" name="csrf" value="${escapeHtml(s.csrf)}"><button type="submit">Connect your bank</button></form>`;
  }

  /** @param {Session} s */
  function disconnectForm(s) {
    return `<form method="post" action="/disconnect"><input type="hidden" name="csrf" value="${escapeHtml(s.csrf)}"><button type="submit">Disconnect</button></form>`;
  }

  return (req, res) => {
    const url = new URL(req.url ?? "/", origin);
    // The service posts here, not a browser: no session, and any Host (it may reach this instance directly).
    if (url.pathname === "/webhooks" && webhooks) return webhooks(req, res);
    // One origin only: the session cookie and the redirect URI belong to publicUrl's host
    // (a visit on localhost would come back on 127.0.0.1 without its cookie).
    if (req.headers.host !== origin.host) {
      if (req.method === "GET" || req.method === "HEAD") return redirect(res, new URL(url.pathname + url.search, origin).href);
      return sendPage(res, 421, "Wrong address", `<p>Open <a href="${escapeHtml(origin.href)}">${escapeHtml(origin.href)}</a>.</p>`);
    }
    const s = session(req, res);
    /** @type {Promise<void> | undefined} */
    let handled;
    const route = routes[`${req.method} ${url.pathname}`];
    if (route) handled = route(req, res, s, url);
    else {
      const parts = url.pathname.split("/");
      // ["", "accounts", accountId, "statements", statementId]: each segment percent-decoded once.
      if (req.method === "GET" && parts.length === 5 && parts[1] === "accounts" && parts[3] === "statements") {
        const [accountId, statementId] = [decode(parts[2]), decode(parts[4])];
        if (accountId && statementId) handled = download(req, res, s, accountId, statementId, url);
      }
    }
    (handled ?? Promise.resolve(sendPage(res, 404, "Not found", `<p>There is no page here.</p>${homeLink()}`))).catch((error) => {
      // Unexpected (the IdP or the API down, a bug): a page without details; the details go to the log.
      console.error(error);
      if (res.headersSent) res.destroy();
      else sendPage(res, 500, "Something went wrong", `<p>The app could not finish that. Try again later.</p>${homeLink()}`);
    });
  };
}

/**
 * @param {import("@fdxkit/client").Statement[]} statements
 * @param {string} accountId
 */
function statementTable(accountId, statements) {
  if (statements.length === 0) return '<p class="muted">No statements.</p>';
  const rows = statements.map((statement) => {
    const date = (statement.statementDate ?? "").slice(0, 10);
    const available = statement.status === "AVAILABLE" && statement.statementId;
    const href = available
      ? `/accounts/${encodeURIComponent(accountId)}/statements/${encodeURIComponent(statement.statementId ?? "")}?date=${encodeURIComponent(date)}`
      : "";
    const link = available ? `<a href="${escapeHtml(href)}" download>PDF</a>` : `<span class="muted">${escapeHtml(statement.status ?? "unavailable")}</span>`;
    return `<tr><td>${escapeHtml(date)}</td><td>${escapeHtml(statement.description ?? "")}</td><td>${link}</td></tr>`;
  });
  return `<table><thead><tr><th>Date</th><th>Description</th><th>Document</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

/** @param {string | undefined} notice */
function noticeHtml(notice) {
  return notice ? `<p role="status" class="notice">${escapeHtml(notice)}</p>` : "";
}

function homeLink() {
  return '<p><a href="/">Back to the home page</a></p>';
}

/**
 * Escapes text for HTML content and double- or single-quoted attributes.
 * @param {string} text
 */
export function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** @param {string | undefined} segment */
function decode(segment) {
  try {
    return segment ? decodeURIComponent(segment) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The urlencoded form of a POST, or undefined when it is not one or is too large.
 * @param {import("node:http").IncomingMessage} req
 * @returns {Promise<URLSearchParams | undefined>}
 */
async function readForm(req) {
  if (!(req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) return undefined;
  /** @type {Buffer[]} */
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/**
 * 303 See Other: after a POST the browser GETs the target.
 * @param {import("node:http").ServerResponse} res
 * @param {string} location
 */
function redirect(res, location) {
  res.writeHead(303, { Location: location, "Cache-Control": "no-store" }).end();
}

/**
 * @param {import("node:http").ServerResponse} res
 * @param {number} status
 * @param {string} title plain text
 * @param {string} bodyHtml already escaped
 */
function sendPage(res, status, title, bodyHtml) {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Connect your bank</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; }
table { border-collapse: collapse; width: 100%; margin-bottom: 1rem; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #ddd; }
button { font: inherit; padding: .4rem 1rem; cursor: pointer; }
.muted { color: #666; }
.notice { background: #eef6ee; padding: .5rem 1rem; border-left: 4px solid #3a7; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${bodyHtml}
</body>
</html>
`;
  res.writeHead(status, {
    "Content-Type": "text/html; charset=utf-8",
    // No script at all; the callback URL (it holds the code) is never sent on as a Referer.
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
  });
  res.end(html);
}
