// The sign-in and consent pages of the sandbox IdP: server-rendered HTML,
// plain forms, no script, so the flow works with JavaScript off. Every value
// that comes from a request or the seed goes through escapeHtml.

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827;margin:0}
main{max-width:28rem;margin:3rem auto;background:#fff;padding:1.75rem 2rem;border-radius:10px;box-shadow:0 1px 4px rgba(0,0,0,.12)}
h1{font-size:1.25rem;margin:0 0 1rem}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #9ca3af;border-radius:6px;font:inherit}
fieldset{border:1px solid #d1d5db;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
fieldset label{font-weight:400;margin:.4rem 0}
.actions{display:flex;gap:.75rem;margin-top:1.25rem}
button{font:inherit;padding:.5rem 1.25rem;border-radius:6px;border:1px solid #1d4ed8;cursor:pointer}
button.primary{background:#1d4ed8;color:#fff}
button.secondary{background:#fff;color:#1d4ed8}
.error{color:#b91c1c;background:#fef2f2;border:1px solid #fecaca;border-radius:6px;padding:.5rem .75rem}
.hint{color:#4b5563;font-size:.875rem;margin-top:1.5rem}
code{font-size:.875em}
.account{color:#4b5563;font-size:.875em;margin-left:.25rem}
`;

/** Headers of every page: HTML, never cached, not framed, no script at all, no referrer to the app. */
const PAGE_HEADERS = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
};

/** A page: `title` names it in the tab, `heading` on the page (kept apart so a button's label appears once in the body). */
function page(status: number, title: string, heading: string, body: string): Response {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · fdxkit Sandbox Bank</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(heading)}</h1>
${body}
</main>
</body>
</html>
`;
  return new Response(html, { status, headers: PAGE_HEADERS });
}

function hiddenFields(fields: Readonly<Record<string, string>>): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join("\n");
}

function errorLine(error: string | undefined): string {
  return error === undefined ? "" : `<p class="error" role="alert">${escapeHtml(error)}</p>\n`;
}

/** What every page of one authorization request shows and carries. */
export interface PageContext {
  /** Where the forms post (the IdP's authorization endpoint path). */
  action: string;
  /** The OAuth client asking. */
  clientId: string;
  /** The authorization request's parameters, carried as hidden fields from page to page. */
  fields: Readonly<Record<string, string>>;
}

/** Step 1: sign in as a sandbox user, or deny at once. */
export function signInPage(
  context: PageContext,
  users: readonly { username: string; password: string }[],
  loginHint: string | undefined,
  error?: string,
): Response {
  const hint = users.map((u) => `<code>${escapeHtml(u.username)}</code> / <code>${escapeHtml(u.password)}</code>`).join(", ");
  return page(
    error === undefined ? 200 : 400,
    "Sign in",
    "fdxkit Sandbox Bank",
    `<p><strong>${escapeHtml(context.clientId)}</strong> asks to read your account statements.</p>
${errorLine(error)}<form method="post" action="${escapeHtml(context.action)}">
${hiddenFields(context.fields)}
<label for="username">Username</label>
<input type="text" id="username" name="username" value="${escapeHtml(loginHint ?? "")}" autocomplete="username" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<div class="actions">
<button type="submit" class="primary" name="action" value="login">Sign in</button>
<button type="submit" class="secondary" name="action" value="deny" formnovalidate>Deny</button>
</div>
</form>
<p class="hint">Sandbox users: ${hint}.</p>`,
  );
}

/** Step 2: tick the accounts to share (each with its product name, when known), then Approve or Deny. */
export function consentPage(
  context: PageContext,
  username: string,
  accounts: readonly string[],
  products: ReadonlyMap<string, string>,
  error?: string,
): Response {
  const boxes = accounts
    .map((account, index) => {
      const product = products.get(account);
      const label = product === undefined ? escapeHtml(account) : `${escapeHtml(product)} <span class="account">${escapeHtml(account)}</span>`;
      return `<label for="account-${index}"><input type="checkbox" id="account-${index}" name="accounts" value="${escapeHtml(account)}" checked> ${label}</label>`;
    })
    .join("\n");
  return page(
    error === undefined ? 200 : 400,
    "Share your accounts",
    "Share your accounts",
    `<p>Signed in as <strong>${escapeHtml(username)}</strong>.</p>
<p><strong>${escapeHtml(context.clientId)}</strong> will be able to read the statements of the accounts you tick, until you revoke its access.</p>
${errorLine(error)}<form method="post" action="${escapeHtml(context.action)}">
${hiddenFields(context.fields)}
<fieldset>
<legend>Accounts</legend>
${boxes}
</fieldset>
<div class="actions">
<button type="submit" class="primary" name="action" value="approve">Approve</button>
<button type="submit" class="secondary" name="action" value="deny">Deny</button>
</div>
<p class="hint">Not ${escapeHtml(username)}? <button type="submit" class="secondary" name="action" value="switch" formnovalidate>Use another account</button></p>
</form>`,
  );
}

/** A request the IdP cannot send back to the app (unknown client, unregistered redirect URI): an error page, no redirect. */
export function errorPage(status: number, message: string): Response {
  return page(status, "Error", "This request cannot be completed", `${errorLine(message)}<p>Nothing was shared. Go back to the app and try again.</p>`);
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };

/** The text {@link escapeHtml} was given. */
export function unescapeHtml(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] as string);
}

/** The hidden fields of a page made here, decoded (what a browser would post back). */
export function readHiddenFields(html: string): [name: string, value: string][] {
  return [...html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(([, name = "", value = ""]) => [
    unescapeHtml(name),
    unescapeHtml(value),
  ]);
}

/** The error line of a page made here, decoded, if it has one. */
export function readError(html: string): string | undefined {
  const match = /<p class="error" role="alert">([^<]*)<\/p>/.exec(html);
  return match ? unescapeHtml(match[1] as string) : undefined;
}

/** The user a consent page made here says is signed in, decoded; `undefined` on any other page. */
export function readSignedInUser(html: string): string | undefined {
  const match = /<p>Signed in as <strong>([^<]*)<\/strong>\.<\/p>/.exec(html);
  return match ? unescapeHtml(match[1] as string) : undefined;
}
