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
    // expect.poll waits for the page to show what a fetch through the SDK brought back (after the first load,
    // a click): its default 1 s is too short for Chromium, the Vite dev server's first transforms and the mock
    // on a loaded two-core machine. What the page must show stays the same; only the wait for it is longer.
    expect: { poll: { timeout: 15_000 } },
  },
});
