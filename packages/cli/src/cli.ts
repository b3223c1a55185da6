import { run } from "./program.js";
import { keepWasmOnBaselineCompiler, opensEmbeddedStore } from "./wasm-tiering.js";

const argv = process.argv.slice(2);
if (opensEmbeddedStore(argv, process.env)) keepWasmOnBaselineCompiler();
run(argv).then(
  (code) => {
    // Let stdout drain (a pipe) before exiting: sockets kept alive by fetch must not hold the process.
    process.stdout.write("", () => process.exit(code));
  },
  (error: unknown) => {
    process.stderr.write(`fdxkit: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
