import { relaunch, wantsLiftoff } from "./relaunch.js";

if (wantsLiftoff(process.argv.slice(2), process.env, process.execArgv)) {
  relaunch();
} else {
  // Loaded only here: a process that starts the command again needs none of it.
  const { run } = await import("./program.js");
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
}
