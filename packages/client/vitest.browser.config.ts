import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "../../scripts/chromium.mjs";
import { playwright } from "@vitest/browser-playwright";
import { defineProject } from "vitest/config";

// The SDK's browser claim, tested in real Chromium: the system browser
// (/usr/bin/chromium, from apt), never one downloaded by playwright.
export default defineProject({
  // mockServiceWorker.js must be served from the origin's root so msw's
  // worker controls the test pages. Kept out of the published `files`.
  publicDir: "test-browser/public",
  test: {
    name: "client-browser",
    include: ["test-browser/**/*.test.ts"],
    // Starts the real @fdxkit/mock server (Node) and provides its URLs to the pages.
    globalSetup: ["test-browser/global-setup.ts"],
    testTimeout: 20_000,
    browser: {
      enabled: true,
      headless: true,
      screenshotFailures: false,
      provider: playwright({
        launchOptions: {
          executablePath: CHROMIUM_PATH,
          args: CHROMIUM_FLAGS,
        },
      }),
      instances: [{ browser: "chromium" }],
    },
  },
});
