// The client's Node tests, as Stryker runs them (stryker.config.mjs): the
// `client` project without the scenarios that run the *build* in a child
// process (`--expose-gc`), which no mutant of the source can reach, and
// without the one that re-imports the client (`vi.resetModules`): with the
// module graph shared (below), that re-runs module-load code inside a test,
// and Stryker then counts its ignored static mutants as covered by that test.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../packages/client", import.meta.url)),
    environment: "node",
    include: ["test/**/*.test.ts"],
    exclude: ["test/**/abort-gc.test.ts", "test/internal/request-first-token.test.ts"],
    // As the `client` project: through Node's own transport (the default in Node), so its mutants are judged by
    // the whole suite, and the request path's through the transport most users get.
    setupFiles: ["test/support/transport.ts"],
    // Coverage instrumentation slows the heaviest tests (a million-member webhook body) several times over.
    testTimeout: 60_000,
    // Test files share one module graph per worker instead of re-importing
    // the client, msw and zod for each file: each mutant re-runs the files of
    // the tests that cover it, and the imports were most of that time. Tried
    // on retry.ts, text.ts and webhooks/body.ts (102 mutants) against the
    // isolated run: 2 min 4 s instead of 3 min 49 s, and every mutant the
    // isolated run detected was detected again (3 as timeouts instead of
    // failures); one it detected by a timeout survived.
    isolate: false,
    // The webhook fuzz tests run 10,000 cases each in the suite; here every
    // mutant of the webhook modules re-runs them, and a mutant they can catch
    // fails within the first few hundred.
    env: { FDXKIT_FUZZ_RUNS: "300" },
  },
});
