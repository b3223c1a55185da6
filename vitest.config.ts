import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      "packages/*/vitest.config.ts",
      "bench/vitest.config.ts",
      // Real Chromium; scripts/check.mjs sets FDXKIT_SKIP_BROWSER where none is installed.
      ...(process.env.FDXKIT_SKIP_BROWSER ? [] : ["packages/client/vitest.browser.config.ts", "examples/browser/vitest.config.ts"]),
    ],
    coverage: {
      provider: "v8",
      include: ["packages/client/src/**", "packages/mock/src/**"],
      exclude: ["**/generated/**"],
      reporter: ["text-summary"],
    },
  },
});
