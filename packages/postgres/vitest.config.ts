import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "postgres",
    environment: "node",
    include: ["test/**/*.test.ts"],
    // One real PostgreSQL server for every test file of the package (test/global-setup.ts).
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
