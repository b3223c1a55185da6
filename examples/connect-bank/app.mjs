// The "connect your bank" app: a node:http request listener, server-rendered
// HTML, no framework. server.mjs wires it to a client, an auth client and a
// connection manager (the sandbox's or a real network's).
//
// Sessions: an HttpOnly, SameSite=Lax cookie holding a random id; the
// sessions themselves live in a Map (one process, an example: a real app
// keeps them where its other sessions are). Each session is one app user,
// so the user's bank connection is stored under the session's user id.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { FdxApiError } from "@fdxkit/client";
import { FdxAuthError, FdxReauthorizationRequiredError } from "@fdxkit/client/auth";

const COOKIE = "connect_bank_session";
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;
/** Sessions kept at most (oldest out): the Map must not grow without bound. */
const MAX_SESSIONS = 10_000;
/** A form body larger than this is refused: the app's forms carry one token. */
const MAX_FORM_BYTES = 4096;
/** The most recent statements shown per account (one page request each). */
const STATEMENTS_SHOWN = 6;

/**
 * @typedef {object} Session
 * @property {string} userId the app user this browser is; connections are stored under it
 * @property {string} csrf the per-session token every POST form must carry
 * @property {{ state: string; nonce: string; codeVerifier: string } | undefined} pending the authorization in progress
 * @property {string | undefined} notice a one-time message for the next page
 */

/**
 * @typedef {object} AppOptions
 * @property {import("@fdxkit/client").FdxClient} client a client with the service token; user calls go through `withOptions`
 * @property {import("@fdxkit/client/auth").AuthClient} auth
 * @property {import("@fdxkit/client/auth").Connections} connections
 * @property {string} connector the connector (bank) to ask the IdP for
 * @property {string} publicUrl the app's own origin as the browser sees it, e.g. http://127.0.0.1:3000 (the redirect URI is publicUrl + /callback)
 */

/**
 * The app's request listener.
 * @param {AppOptions} options
 * @returns {(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void}
 */
export function createConnectBankApp({ client, auth, connections, connector, publicUrl }) {
  const origin = new URL(publicUrl);
  const secureCookie = origin.protocol === "https:";
  /** @type {Map<string, Session>} */
  const sessions = new Map();

  /**
   * The request's session, made (and its cookie set) when there is none.
   * @param {import("node:http").IncomingMessage} req
   * @param {import("node:http").ServerResponse} res
   * @returns {Session}
   */
  function session(req, res) {
    const id = readCookie(req.headers.cookie, COOKIE);
    const found = id && SESSION_ID.test(id) ? sessions.get(id) : undefined;
    if (found) return found;
    const newId = randomBytes(32).toString("base64url");
    const created = { userId: `user-${randomBytes(16).toString("base64url")}`, csrf: randomBytes(32).toString("base64url"), pending: undefined, notice: undefined };
    if (sessions.size >= MAX_SESSIONS) sessions.delete(/** @type {string} */ (sessions.keys().next().value));
    sessions.set(newId, created);
    res.setHeader("Set-Cookie", `${COOKIE}=${newId}; Path=/; HttpOnly; SameSite=Lax${secureCookie ? "; Secure" : ""}`);
    return created;
  }

  /**
   * @param {Session} s
   * @returns {string | undefined}
   */
  function takeNotice(s) {
    const notice = s.notice;
    s.notice = undefined;
    return notice;
  }

  /** @type {Record<string, (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse, s: Session, url: URL) => Promise<void>>} */
  const routes = {
    "GET /": async (_req, res, s) => {
      const connection = await connections.get(s.userId);
      if (connection?.status !== "active") {
        const notice =
          takeNotice(s) ?? (connection?.status === "reauthorization_required" ? "Your bank connection has ended. Connect again to see your statements." : undefined);
        return sendPage(res, 200, "Connect your bank", connectForm(s, notice));
      }
      try {
        const sections = await accountSections(connection, s);
        return sendPage(res, 200, "Your accounts", `${noticeHtml(takeNotice(s))}${sections}${disconnectForm(s)}`);
      } catch (error) {
        if (!(error instanceof FdxReauthorizationRequiredError)) throw error;
        // The bank refused the connection's refresh (revoked at the bank, expired): the user connects again.
        return sendPage(res, 200, "Connect your bank", connectForm(s, "Your bank connection has ended. Connect again to see your statements."));
      }
    },

    "POST /connect": async (req, res, s) => {
      if (!(await csrfOk(req, s))) return sendPage(res, 403, "Forbidden", "<p>This form has expired. Go back to the <a href=\"/\">home page</a> and try again.</p>");
      const { url, state, nonce, codeVerifier } = await auth.authorizationUrl({ connector });
      s.pending = { state, nonce, codeVerifier };
      redirect(res, url);
    },

    "GET /callback": async (_req, res, s, url) => {
      const pending = s.pending;
      // One use: a reload of the callback, or a second tab's, finds nothing to complete.
      s.pending = undefined;
      if (!pending) return sendPage(res, 400, "Nothing to complete", `<p>No bank connection was in progress in this browser.</p>${homeLink()}`);
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
      if (!(await csrfOk(req, s))) return sendPage(res, 403, "Forbidden", "<p>This form has expired. Go back to the <a href=\"/\">home page</a> and try again.</p>");
      try {
        await connections.revoke(s.userId);
        s.notice = "Disconnected: this app can no longer read your statements.";
      } catch (error) {
        // revoke() erases the tokens here even when the bank could not be told.
        s.notice = `Disconnected here, but the bank could not be told (${error instanceof Error ? error.message : String(error)}). You can end the access at your bank too.`;
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
    if (connection?.status !== "active" || !connection.accounts.includes(accountId)) return sendPage(res, 404, "Not found", `<p>No such statement.</p>${homeLink()}`);
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
    const href = available ? `/accounts/${encodeURIComponent(accountId)}/statements/${encodeURIComponent(statement.statementId ?? "")}?date=${encodeURIComponent(date)}` : "";
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
 * @param {string | undefined} header
 * @param {string} name
 */
function readCookie(header, name) {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
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
