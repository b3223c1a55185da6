// Mutation testing of the client's core (`pnpm test:mutation`, which also
// writes MUTATION.md). Incremental: the file below is committed, so a run
// after a change re-tests only the mutants that the change touches.
// `scripts/mutation.mjs --part NAMES` sets FDXKIT_MUTATE_PART: only the
// globs below whose path holds one of its comma-separated names are mutated.
// A name that is a file's path (packages/client/src/…ts) mutates that file alone.
/** Every glob mutated by a whole run. */
export const GLOBS = [
  "packages/client/src/internal/{request,attempt,token,headers,hooks,send-fetch,bounded-read,abort,body,context,retry,validation,paths,url,recent,redirects,checks,budget,actor}.ts",
  "packages/client/src/rate-budget/memory.ts",
  "packages/client/src/core/{error,redact}.ts",
  "packages/client/src/pagination/*.ts",
  "packages/client/src/download/*.ts",
  "packages/client/src/webhooks/{body,content-type,guards,handler,json,parse,shape}.ts",
  "packages/client/src/auth/{client-credentials,auth-client,connections,encrypt-store,memory-store,id-token,encoding,errors,notification,row-binding,seal,token-answer,token-endpoint}.ts",
  "packages/client/src/auth/connections/*.ts",
  "packages/client/src/auth/auth-client/*.ts",
  "packages/client/src/node/transport.ts",
];

/** What a part named by `names` mutates: the globs holding a name, and the names that are files' paths. */
export function partGlobs(names) {
  const files = names.filter((name) => name.endsWith(".ts"));
  return [...GLOBS.filter((glob) => names.some((name) => !name.endsWith(".ts") && glob.includes(name))), ...files];
}

const part = (process.env.FDXKIT_MUTATE_PART ?? "").split(",").filter(Boolean);

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "mutation/vitest.config.ts" },
  coverageAnalysis: "perTest",
  // Static mutants (code run once at module load: constants, patterns, schema
  // definitions) would each re-run the whole suite: some 300 of them took
  // over 60 % of a run estimated at hours. They are reported as ignored, and
  // MUTATION.md counts them per file.
  ignoreStatic: true,
  concurrency: 2,
  mutate: part.length === 0 ? GLOBS : partGlobs(part),
  incremental: true,
  incrementalFile: "mutation/stryker-incremental.json",
  reporters: ["json", "html", "clear-text", "progress"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  thresholds: { high: 90, low: 85, break: null },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  ignorePatterns: ["bench", "examples", "docs", "packed", "coverage", ".vitest-results", "reports"],
};
