// The browser example as a user meets it: real Chromium, the Vite dev
// server, the real mock server on 127.0.0.1. Pages through the statements,
// downloads a PDF, and reads an FDX error off the page.
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "../../../scripts/chromium.mjs";
import { startExample } from "../dev.mjs";

const outputDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../test-output");

let example: Awaited<ReturnType<typeof startExample>>;
let browser: Browser;

beforeAll(async () => {
  example = await startExample();
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
  });
});

afterAll(async () => {
  await browser?.close();
  await example?.close();
});

/** A fresh page that records what would be a bug for a user: uncaught errors and console errors. */
async function openPage(query = ""): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  await page.goto(example.url + query);
  return { page, problems };
}

const rows = (page: Page) => page.locator("#statements tbody tr");

it("pages through the statements, downloads a PDF and saves a screenshot", async () => {
  const { page, problems } = await openPage();
  const next = page.getByRole("button", { name: "Next page" });

  // 24 seeded monthly statements, 6 per page: four pages, then no Next.
  const dates = new Set<string>();
  for (let expectedPage = 1; expectedPage <= 4; expectedPage++) {
    await expect.poll(() => page.locator("#page-label").textContent()).toBe(`Page ${expectedPage} (6 statements)`);
    await expect.poll(() => rows(page).count()).toBe(6);
    for (const text of await rows(page).locator("td:first-child").allTextContents()) dates.add(text);
    if (expectedPage < 4) {
      expect(await next.isEnabled()).toBe(true);
      await next.click();
    }
  }
  await expect.poll(() => page.locator("#status").textContent()).toBe("Last page.");
  expect(await next.isDisabled()).toBe(true);
  expect(dates.size).toBe(24);

  // Download the first statement of this page: the page builds a Blob URL and clicks an <a download>.
  const firstRow = rows(page).first();
  const [download] = await Promise.all([page.waitForEvent("download"), firstRow.getByRole("button", { name: "Download PDF" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^statement-\d{4}-\d{2}-\d{2}\.pdf$/);
  const saved = path.join(outputDir, download.suggestedFilename());
  await mkdir(outputDir, { recursive: true });
  await download.saveAs(saved);
  const bytes = await readFile(saved);
  expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
  expect(bytes.byteLength).toBeGreaterThan(100);

  // The link stays on the page; fetching its blob URL in the page gives the same bytes.
  const link = firstRow.locator("a[download]");
  const href = await link.getAttribute("href");
  expect(href).toMatch(/^blob:/);
  const head = await page.evaluate(async (url) => {
    const buffer = await (await fetch(url)).arrayBuffer();
    return [buffer.byteLength, new TextDecoder().decode(buffer.slice(0, 5))] as const;
  }, href!);
  expect(head).toEqual([bytes.byteLength, "%PDF-"]);

  const screenshot = path.join(outputDir, "example-browser.png");
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(`screenshot: ${screenshot}`);
  expect(await page.locator("#error").isHidden()).toBe(true);
  expect(problems).toEqual([]);
  await page.context().close();
});

it("shows an FDX error readably: status, code and message", async () => {
  const { page } = await openPage("?token=not-the-sandbox-token");
  const alert = page.getByRole("alert");
  await expect.poll(() => alert.isVisible()).toBe(true);
  const text = (await alert.textContent()) ?? "";
  expect(text).toContain("FdxUnauthorizedError: HTTP 401, FDX code 1205");
  expect(text).toMatch(/Unauthorized/i);
  expect(await rows(page).count()).toBe(0);
  // The token stays out of what the page shows.
  expect(text).not.toContain("not-the-sandbox-token");

  // Fix the token in the form and load again: the error goes, the statements come.
  await page.locator("input[name=token]").fill(example.mock.token);
  await page.getByRole("button", { name: "Load statements" }).click();
  await expect.poll(() => rows(page).count()).toBe(6);
  expect(await alert.isHidden()).toBe(true);
  await page.context().close();
});

it("an unknown account shows the mock's 404 with its FDX code", async () => {
  const { page } = await openPage("?accountId=ACC-NOPE");
  const alert = page.getByRole("alert");
  await expect.poll(() => alert.isVisible()).toBe(true);
  expect(await alert.textContent()).toContain("FdxNotFoundError: HTTP 404, FDX code 701");
  await page.context().close();
});
