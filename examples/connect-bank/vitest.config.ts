import { defineProject } from "vitest/config";

// The app end to end: Node drives Debian's Chromium (playwright-core) through
// the app, the sandbox identity provider's pages and back.
export default defineProject({
  test: {
    name: "example-connect-bank",
    environment: "node",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
