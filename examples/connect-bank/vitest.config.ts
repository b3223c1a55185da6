import { defineProject } from "vitest/config";

// The app end to end: Node drives Debian's Chromium (playwright-core) through
// the app, the sandbox identity provider's pages and back. One real
// PostgreSQL server, started as @fdxkit/postgres's tests start it, holds the
// connections of the two-instance test (missing: that test is skipped, and
// under CI it is a failure).
export default defineProject({
  test: {
    name: "example-connect-bank",
    environment: "node",
    include: ["test/**/*.test.ts"],
    globalSetup: ["../../packages/postgres/test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
