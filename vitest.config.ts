import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      "packages/*/vitest.config.ts",
      // The client suite again, through fetch instead of Node's own transport.
      "packages/client/vitest.fetch.config.ts",
      "bench/vitest.config.ts",
      // Real Chromium; scripts/check.mjs sets FDXKIT_SKIP_BROWSER where none is installed.
      ...(process.env.FDXKIT_SKIP_BROWSER
        ? []
        : ["packages/client/vitest.browser.config.ts", "examples/browser/vitest.config.ts", "examples/connect-bank/vitest.config.ts"]),
    ],
    // `vitest run --coverage` (scripts/check.mjs does): V8 coverage of the two
    // published libraries, over every project that runs (the browser projects
    // included), enforced below.
    coverage: {
      provider: "v8",
      include: ["packages/client/src/**", "packages/mock/src/**"],
      exclude: [
        "**/generated/**",
        // The bin runs in a child process (packages/mock/test/cli.test.ts spawns the built dist/cli.js),
        // where in-process coverage cannot see it.
        "packages/mock/src/cli.ts",
      ],
      reporter: ["text-summary", "json-summary"],
      reportsDirectory: "coverage",
      // Figures even when a test fails, so a red run still shows where coverage stands.
      reportOnFailure: true,
      thresholds: { lines: 90, branches: 90 },
    },
  },
});
