import module from "node:module";
import { keepWasmOnBaselineCompiler, opensEmbeddedStore } from "./wasm-tiering.js";

// Node 22.1 and later keep V8's compiled code of the modules a run loads (in
// the OS's temporary directory), so a later run skips compiling the CLI's
// JavaScript, and PGlite's 400 kB of it, again. Set before those modules load.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const argv = process.argv.slice(2);
if (opensEmbeddedStore(argv, process.env)) keepWasmOnBaselineCompiler();
const { run } = await import("./program.js");
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
