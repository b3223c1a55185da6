// Two instances of the app, as production runs them: separate processes
// behind one load balancer, sharing one real PostgreSQL server and one
// sandbox, and nothing in memory. Chromium starts a login on instance A and
// the IdP's callback lands on instance B, which can finish it only because
// the login travels in the sealed cookie; the sandbox's CONSENT_REVOKED
// delivery goes to B, and A's next page asks the user to reconnect; the
// user disconnects on A.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { createClient } from "@fdxkit/client";
import { encryptConnectionStore } from "@fdxkit/client/auth";
import { startMockServer, type MockServer } from "@fdxkit/mock/server";
import { postgresConnectionStore } from "@fdxkit/postgres";
import pg from "pg";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "../../../scripts/chromium.mjs";
import { startInstance, type Instance } from "./instance.js";
import { startLoadBalancer, type LoadBalancer } from "./load-balancer.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** `postgres://…` of the test server, or "" when none could be started. */
    postgresUrl: string;
  }
}

const postgresUrl = inject("postgresUrl");
const skip = Boolean(process.env.FDXKIT_SKIP_BROWSER) || !existsSync(CHROMIUM_PATH) || !postgresUrl;

const key = () => randomBytes(32).toString("base64");
/** The same secrets for both instances, as a deployment hands every instance the same ones. */
const tokenKeys = { keys: { t1: key() }, current: "t1" };

let mock: MockServer;
let lb: LoadBalancer;
let a: Instance;
let b: Instance;
let pool: pg.Pool;
let browser: Browser;
let context: BrowserContext;
/** Which instance the load balancer sends a request to; the test changes it between steps. */
let pick: (path: string) => "A" | "B" = () => "A";

beforeAll(async () => {
  if (skip) return;
  // Failed deliveries are retried soon, so a test that fails says so without waiting for the real service's 25 s.
  mock = await startMockServer({ requireUserTokens: true, deliveryRetryDelaysMs: [200, 500] });
  const backends = new Map<string, string>();
  lb = await startLoadBalancer((req) => pick(new URL(req.url ?? "/", "http://lb").pathname), backends);
  const env = {
    FDX_ISSUER: mock.idpUrl,
    FDX_BASE_URL: mock.baseUrl,
    FDX_PRODUCTS_URL: mock.productsUrl,
    FDX_TOKEN: mock.token,
    FDX_CLIENT_ID: mock.clientId,
    FDX_CLIENT_SECRET: mock.clientSecret,
    FDX_CONNECTOR: mock.seed.providerId,
    PUBLIC_URL: lb.url,
    DATABASE_URL: postgresUrl,
    SESSION_SECRET: randomBytes(32).toString("base64url"),
    LOGIN_KEYS: `l1:${key()}`,
    TOKEN_KEYS: `t1:${tokenKeys.keys.t1}`,
  };
  [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
  backends.set("A", a.url);
  backends.set("B", b.url);
  // The sandbox posts consent revocations to instance B only.
  const service = createClient({ baseUrl: mock.baseUrl, token: mock.token, allowInsecureCallbackUrls: true });
  await service.subscriptions.create({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: `${b.url}/webhooks` });
  pool = new pg.Pool({ connectionString: postgresUrl });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  await Promise.all([lb?.close(), mock?.close(), pool?.end()]);
});

/** The stored connections, tokens decrypted with the instances' key. */
async function storedConnections() {
  const store = encryptConnectionStore(postgresConnectionStore(pool), tokenKeys);
  const rows = [];
  for await (const row of store.list()) rows.push(row);
  return rows;
}

/** Connect your bank → sign in at the IdP (unless signed in there already) → tick every account. */
async function connect(page: Page) {
  const user = mock.seed.users[0]!;
  await page.getByRole("button", { name: "Connect your bank" }).click();
  await page.waitForURL(`${mock.idpUrl}/auth?**`);
  // The IdP remembers a browser that signed in before: then it asks only for the consent.
  if ((await page.locator("#username").count()) > 0) {
    await page.fill("#username", user.username);
    await page.fill("#password", user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
  }
  for (const box of await page.getByRole("checkbox").all()) await box.check();
  return user;
}

it.skipIf(skip)("a login started on A completes on B; B hears of the revocation and A asks to reconnect; the user disconnects on A", async () => {
  context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  await page.goto(lb.url);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Connect your bank");

  // 1. Connect on A; the IdP's callback is sent to B.
  pick = (path) => (path === "/callback" ? "B" : "A");
  const user = await connect(page);
  // A sealed the login into a cookie for the callback only; B has never seen this browser.
  const [login] = (await context.cookies(`${lb.url}/callback`)).filter((c) => c.name === "connect_bank_login");
  expect(login).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/callback" });
  expect(login!.value).toMatch(/^[A-Za-z0-9_.-]+$/);
  expect(login!.value.length).toBeLessThanOrEqual(1024);
  expect(b.output.join("\n")).not.toContain("webhook");
  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForURL(`${lb.url}/`);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Your accounts");
  expect(await page.getByRole("heading", { level: 2 }).allTextContents()).toEqual(user.accounts.map((id) => `Account ${id}`));
  expect(lb.served).toEqual(["GET / → A", "POST /connect → A", "GET /callback → B", "GET / → A"]);
  // B cleared the login cookie: the callback cannot be completed twice.
  expect((await context.cookies(`${lb.url}/callback`)).map((c) => c.name)).not.toContain("connect_bank_login");

  // B wrote the connection to PostgreSQL (tokens encrypted), and A read it from there.
  const [connection] = await storedConnections();
  expect(connection).toMatchObject({ status: "active", accounts: user.accounts });
  const { rows } = await pool.query<{ refresh_token: string }>("SELECT refresh_token FROM fdxkit_connections WHERE id = $1", [connection!.id]);
  expect(rows[0]!.refresh_token.startsWith("fdxenc.")).toBe(true);
  expect(rows[0]!.refresh_token).not.toContain(connection!.refreshToken);
  const statementsUrl = `${mock.productsUrl}/statements/v2/${mock.seed.providerId}/${user.accounts[0]}`;
  expect((await fetch(statementsUrl, { headers: { Authorization: `Bearer ${connection!.idToken}` } })).status).toBe(200);

  // 2. The user revokes at the bank: the sandbox posts CONSENT_REVOKED to B.
  const before = mock.authStats();
  await mock.revokeConsent(connection!.consentId!);
  await mock.idle();
  const [delivery] = mock.deliveries().filter((d) => d.notification.type === "CONSENT_REVOKED");
  expect(delivery).toMatchObject({ url: `${b.url}/webhooks`, status: "delivered", responseStatus: 200, attempts: 1 });
  expect(b.output).toContain(`webhook CONSENT_REVOKED consent ${connection!.consentId}: revoked (connection ${connection!.id})`);
  expect((await storedConnections())[0]).toMatchObject({ status: "revoked", idToken: "", refreshToken: "" });

  // A's next page asks the user to reconnect, from the store alone: no refresh was tried and refused to find out.
  await page.goto(lb.url);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Connect your bank");
  expect(await page.getByRole("status").textContent()).toMatch(/reconnect/i);
  expect(mock.authStats()).toEqual(before);
  expect(lb.served.at(-1)).toBe("GET / → A");

  // The same delivery again — redelivered to B, and posted to A — is handled once across both (shared claims).
  await mock.redeliver(delivery!.notificationId);
  const toA = await fetch(`${a.url}/webhooks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(delivery!.notification),
  });
  expect(toA.status).toBe(200);
  expect([...a.output, ...b.output].filter((line) => line.startsWith("webhook "))).toHaveLength(1);

  // 3. Reconnect (callback on B again), then disconnect on A.
  await connect(page);
  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForURL(`${lb.url}/`);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Your accounts");
  const [reconnected] = await storedConnections();
  expect(reconnected).toMatchObject({ status: "active", id: connection!.id });
  const revocations = mock.authStats().revocations;
  await page.getByRole("button", { name: "Disconnect" }).click();
  await page.waitForURL(`${lb.url}/`);
  expect(lb.served.slice(-2)).toEqual(["POST /disconnect → A", "GET / → A"]);
  expect(await page.getByRole("status").textContent()).toContain("Disconnected");
  expect(mock.authStats().revocations).toBe(revocations + 1);
  expect((await storedConnections())[0]).toMatchObject({ status: "revoked", idToken: "", refreshToken: "" });
  const after = await fetch(statementsUrl, { headers: { Authorization: `Bearer ${reconnected!.idToken}` } });
  expect(after.status).toBe(401);
  expect(await after.json()).toEqual({ code: 602, message: "Customer not authorized" });
  expect(problems).toEqual([]);
});
