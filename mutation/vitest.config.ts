// The client's Node tests, as Stryker runs them (stryker.config.mjs): the
// `client` project without the scenarios that run the *build* in a child
// process (`--expose-gc`), which no mutant of the source can reach.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../packages/client", import.meta.url)),
    environment: "node",
    include: ["test/**/*.test.ts"],
    exclude: ["test/**/abort-gc.test.ts"],
    testTimeout: 20_000,
  },
});
