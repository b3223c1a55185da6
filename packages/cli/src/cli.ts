import { run } from "./program.js";

run(process.argv.slice(2)).then(
  (code) => {
    // Let stdout drain (a pipe) before exiting: sockets kept alive by fetch must not hold the process.
    process.stdout.write("", () => process.exit(code));
  },
  (error: unknown) => {
    process.stderr.write(`fdxkit: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
