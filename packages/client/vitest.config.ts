import { defineProject } from "vitest/config";

// Every test runs against both transports, as a parameter (test/support/transport.ts):
// here through Node's own (node:http, the default in Node), in vitest.fetch.config.ts through globalThis.fetch.
export default defineProject({
  test: {
    name: "client",
    environment: "node",
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/support/transport.ts"],
    testTimeout: 20_000,
  },
});
