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
    // The webhook fuzz tests run 10,000 cases each in the suite; here every
    // mutant of the webhook modules re-runs them, and a mutant they can catch
    // fails within the first few hundred.
    env: { FDXKIT_FUZZ_RUNS: "300" },
  },
});
