import { defineProject } from "vitest/config";

// The example page end to end: Node drives system Chromium (playwright-core)
// against the Vite dev server and the real mock server.
export default defineProject({
  test: {
    name: "example-browser",
    environment: "node",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
