// The IdP's pages as a user meets them: Debian's Chromium clicks through
// sign-in, consent and Deny, with JavaScript off and on, and lands on the
// app's callback (a real server on 127.0.0.1).
import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "../../../scripts/chromium.mjs";
import { startMockServer, type MockServer } from "../src/index.js";
import { authorizationRequest, claimsOf } from "./idp-helpers.js";

const skip = Boolean(process.env.FDXKIT_SKIP_BROWSER) || !existsSync(CHROMIUM_PATH);

let mock: MockServer;
let browser: Browser;
let app: http.Server;
let callback = "";

beforeAll(async () => {
  if (skip) return;
  mock = await startMockServer();
  app = http.createServer((req, res) => {
    res.setHeader("Content-Type", "text/plain");
    res.end(`back in the app: ${req.url}`);
  });
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
  callback = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
});

afterAll(async () => {
  await browser?.close();
  await mock?.close();
  await new Promise<void>((resolve) => (app ? app.close(() => resolve()) : resolve()));
});

it.skipIf(skip).each([false, true])("signs in, unticks an account, approves, and denies in Chromium (JavaScript %s)", async (javaScriptEnabled) => {
  const context = await browser.newContext({ javaScriptEnabled });
  try {
    const page = await context.newPage();
    const request = authorizationRequest(mock, { redirect_uri: callback });
    await page.goto(request.url);
    await page.fill("#username", "user_good");
    await page.fill("#password", "pass_good");
    await page.click("text=Sign in");
    await page.uncheck("text=High-Yield Savings");
    await page.click("text=Approve");
    await page.waitForURL(`${callback}?**`);
    expect(await page.textContent("body")).toContain("back in the app: /callback?code=");
    const landed = new URL(page.url());
    expect(landed.searchParams.get("state")).toBe(request.state);
    // The code works at the token endpoint with the callback the browser came back on.
    const code = landed.searchParams.get("code") as string;
    const response = await fetch(`${mock.idpUrl}/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${mock.clientId}:${mock.clientSecret}`)}` },
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: callback, code_verifier: request.verifier }),
    });
    expect(claimsOf((await response.json()).id_token).accounts).toEqual(["ACC-1001", "ACC-1003"]);

    const denied = authorizationRequest(mock, { redirect_uri: callback });
    await page.goto(denied.url);
    await page.click("text=Deny");
    await page.waitForURL(`${callback}?**`);
    expect(new URL(page.url()).searchParams.get("error")).toBe("access_denied");
  } finally {
    await context.close();
  }
});
