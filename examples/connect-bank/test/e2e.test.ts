// The app as an end user meets it: Debian's Chromium clicks through the app,
// the sandbox identity provider's sign-in and consent pages (a real server on
// 127.0.0.1, `requireUserTokens: true`) and back, downloads a PDF through the
// app, and disconnects.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Connection } from "@fdxkit/client/auth";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "../../../scripts/chromium.mjs";
import { startConnectBank, type ConnectBank } from "../server.mjs";

const skip = Boolean(process.env.FDXKIT_SKIP_BROWSER) || !existsSync(CHROMIUM_PATH);

let app: ConnectBank;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  if (skip) return;
  // An empty env: the sandbox runs in-process whatever the machine's FDX_* variables say.
  app = await startConnectBank({ env: {} });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

afterEach(async () => {
  await context?.close();
});

function sandbox() {
  const mock = app.mock;
  if (!mock) throw new Error("the sandbox should run in-process");
  return mock;
}

/** A fresh browser (its own session cookie) that records what would be a bug for a user. */
async function openApp(): Promise<{ page: Page; problems: string[] }> {
  context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  await page.goto(app.url);
  return { page, problems };
}

/** Connect your bank → the IdP's sign-in page, signed in as the first seeded user. */
async function signInAtIdp(page: Page) {
  const user = sandbox().seed.users[0]!;
  await page.getByRole("button", { name: "Connect your bank" }).click();
  await page.waitForURL(`${sandbox().idpUrl}/auth?**`);
  await page.fill("#username", user.username);
  await page.fill("#password", user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  return user;
}

async function allConnections(): Promise<Connection[]> {
  const rows: Connection[] = [];
  for await (const row of app.connections.list()) rows.push(row);
  return rows;
}

it.skipIf(skip)("connects, lists the granted accounts and their statements, downloads a PDF, and disconnects", async () => {
  const mock = sandbox();
  const { page, problems } = await openApp();
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Connect your bank");

  const user = await signInAtIdp(page);
  const boxes = page.getByRole("checkbox");
  expect(await boxes.count()).toBe(user.accounts.length);
  for (const box of await boxes.all()) await box.check();
  await page.getByRole("button", { name: "Approve" }).click();

  // Back on the app, on its home page (the callback redirected there).
  await page.waitForURL(app.url);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Your accounts");
  expect(await page.getByRole("heading", { level: 2 }).allTextContents()).toEqual(user.accounts.map((id) => `Account ${id}`));
  // Each account's six most recent statements, newest first (the seeded monthly ones end on 2026-10-31).
  const firstAccount = page.locator("section").first();
  expect(await firstAccount.locator("tbody tr").count()).toBe(6);
  expect(await firstAccount.locator("tbody tr td:first-child").first().textContent()).toBe("2026-10-31");
  for (const section of await page.locator("section").all()) expect(await section.locator("tbody tr").count()).toBe(6);

  // The PDF link downloads through the app, with the user's token.
  const [download] = await Promise.all([page.waitForEvent("download"), firstAccount.getByRole("link", { name: "PDF" }).first().click()]);
  expect(download.suggestedFilename()).toBe(`statement-${user.accounts[0]}-2026-10-31.pdf`);
  const bytes = await readFile((await download.path())!);
  expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
  expect(bytes.byteLength).toBeGreaterThan(100);

  // Only the accounts this user shared: another user's account id typed into the URL gets nothing.
  const otherAccount = mock.seed.users[1]!.accounts[0]!;
  const refused = await page.request.get(new URL(`/accounts/${otherAccount}/statements/any`, app.url).href);
  expect(refused.status()).toBe(404);
  // Refused by the app itself, before any call (the sandbox would answer 404 701 too: that page says "Statement unavailable").
  expect(await refused.text()).toContain("No such statement.");

  const [connection] = await allConnections().then((rows) => rows.filter((row) => row.status === "active"));
  expect(connection?.accounts).toEqual(user.accounts);
  const idToken = connection!.idToken;
  const statementsUrl = `${mock.productsUrl}/statements/v2/${mock.seed.providerId}/${user.accounts[0]}`;
  expect((await fetch(statementsUrl, { headers: { Authorization: `Bearer ${idToken}` } })).status).toBe(200);
  expect(mock.authStats().revocations).toBe(0);

  // A Disconnect without the session's form token (another site's form, say) is refused, and changes nothing.
  const forged = await page.request.post(new URL("/disconnect", app.url).href, { form: { csrf: "not-the-token" }, maxRedirects: 0 });
  expect(forged.status()).toBe(403);
  expect((await app.connections.get(connection!.id))?.status).toBe("active");

  await page.getByRole("button", { name: "Disconnect" }).click();
  await page.waitForURL(app.url);
  expect(await page.getByRole("status").textContent()).toContain("Disconnected");
  expect(await page.getByRole("button", { name: "Connect your bank" }).isVisible()).toBe(true);

  // Revoked at the IdP, and erased here: the user's token now answers 602.
  expect(mock.authStats().revocations).toBe(1);
  expect(await app.connections.get(connection!.id)).toMatchObject({ status: "revoked", idToken: "", refreshToken: "" });
  const after = await fetch(statementsUrl, { headers: { Authorization: `Bearer ${idToken}` } });
  expect(after.status).toBe(401);
  expect(await after.json()).toEqual({ code: 602, message: "Customer not authorized" });
  expect(problems).toEqual([]);
});

it.skipIf(skip)('Deny at the IdP → "You did not connect", and nothing is stored', async () => {
  const mock = sandbox();
  const before = { stats: mock.authStats(), connections: (await allConnections()).length };
  const { page } = await openApp();
  await signInAtIdp(page);
  await page.getByRole("button", { name: "Deny" }).click();

  await page.waitForURL(`${new URL(app.url).origin}/callback?**`);
  expect(new URL(page.url()).searchParams.get("error")).toBe("access_denied");
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("You did not connect");
  expect(await page.textContent("body")).toContain("nothing was shared");
  expect(mock.authStats().codesExchanged).toBe(before.stats.codesExchanged);
  expect((await allConnections()).length).toBe(before.connections);

  await page.getByRole("link", { name: "Back to the home page" }).click();
  expect(await page.getByRole("button", { name: "Connect your bank" }).isVisible()).toBe(true);
});

it.skipIf(skip)("a consent revoked at the bank: the next visit asks the user to connect again", async () => {
  const mock = sandbox();
  const { page } = await openApp();
  await signInAtIdp(page);
  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForURL(app.url);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Your accounts");
  const consentIds = (await allConnections()).filter((row) => row.status === "active").map((row) => row.consentId);
  expect(consentIds).toHaveLength(1);

  await mock.revokeConsent(consentIds[0]!);
  // The cached id token answers 602; its refresh is refused; the connection ends.
  await page.reload();
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Connect your bank");
  expect(await page.getByRole("status").textContent()).toContain("Your bank connection has ended");
  expect((await allConnections()).filter((row) => row.status === "active")).toHaveLength(0);
});

it.skipIf(skip)("the sealed login opens only for the session that started it: in another browser it is refused, and no code is exchanged", async () => {
  const mock = sandbox();
  const { page } = await openApp();
  await page.getByRole("button", { name: "Connect your bank" }).click();
  await page.waitForURL(`${mock.idpUrl}/auth?**`);
  // The user approves (the sandbox walks its pages): where the IdP sends the browser back, held before the app sees it.
  const callback = await mock.authorize(page.url());
  const [login] = (await context.cookies(new URL("/callback", app.url).href)).filter((c) => c.name === "connect_bank_login");
  expect(login).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/callback" });

  // Another browser (its own session, so another user) with this login cookie and the code.
  const other = await browser.newContext();
  try {
    await other.addCookies([login!]);
    const otherPage = await other.newPage();
    const before = mock.authStats().codesExchanged;
    const response = await otherPage.goto(callback);
    expect(response?.status()).toBe(400);
    expect(await otherPage.getByRole("heading", { level: 1 }).textContent()).toBe("Could not connect");
    expect(await otherPage.textContent("body")).toContain("started too long ago, or in another browser");
    expect(mock.authStats().codesExchanged).toBe(before);
    // The cookie is cleared there: a second try finds nothing.
    expect((await other.cookies(callback)).map((c) => c.name)).not.toContain("connect_bank_login");
  } finally {
    await other.close();
  }

  // The browser that started it completes it.
  await page.goto(callback);
  await page.waitForURL(app.url);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Your accounts");
  // A reload of the callback has no login cookie left to complete.
  const again = await page.goto(callback);
  expect(again?.status()).toBe(400);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Nothing to complete");
});

it.skipIf(skip)("what the IdP sends back is shown escaped, never as markup", async () => {
  const { page } = await openApp();
  await page.getByRole("button", { name: "Connect your bank" }).click();
  await page.waitForURL(`${sandbox().idpUrl}/auth?**`);
  const state = new URL(page.url()).searchParams.get("state")!;
  // An error callback with the session's own state: the SDK takes it, and its text reaches the page.
  const hostile = '<img src=x onerror="document.title=1">';
  const callback = new URL("/callback", app.url);
  callback.search = new URLSearchParams({ error: "server_error", error_description: hostile, state }).toString();
  const response = await page.goto(callback.href);
  expect(response?.status()).toBe(400);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Could not connect");
  expect(await page.textContent("body")).toContain(hostile);
  expect(await page.locator("img").count()).toBe(0);
});

it.skipIf(skip)("serves one origin only: another host name is sent to the app's address, where its cookie lives", async () => {
  const { port } = new URL(app.url);
  const response = await fetch(`http://localhost:${port}/callback?state=s`, { redirect: "manual" });
  expect(response.status).toBe(303);
  expect(response.headers.get("location")).toBe(new URL("/callback?state=s", app.url).href);
  expect(response.headers.get("set-cookie")).toBeNull();
});
