// The embedded store is PGlite: PostgreSQL compiled to WebAssembly. Node compiles
// a hot WebAssembly function again with its optimizing compiler on a background
// thread, and at exit it waits for any such compile still running; PostgreSQL's
// largest functions take seconds to optimize, longer than a whole command on a
// small store. With only V8's baseline compiler (Liftoff), the command ends when
// its work does. That is a V8 flag, fixed when the process starts, so a command
// that will open the embedded store starts itself again with it.
import { isPostgresUrl } from "./postgres-url.js";

export const LIFTOFF_FLAG = "--liftoff-only";

type Env = Readonly<Record<string, string | undefined>>;

const isPostgres = (value: string | undefined) => value !== undefined && isPostgresUrl(value.trim());

/** The value of `--name VALUE` or `--name=VALUE` in `argv`, the last one given. */
function flagValue(argv: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  argv.forEach((arg, i) => {
    if (arg === name && i + 1 < argv.length) value = argv[i + 1];
    else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
  });
  return value;
}

/**
 * Whether the command in `argv` will open an embedded store (the connections
 * store in a directory, or a `--rate-budget` directory) in a process started
 * without the flag. A wrong guess costs time, never a result: the command
 * runs the same either way.
 */
export function wantsLiftoff(argv: readonly string[], env: Env, execArgv: readonly string[]): boolean {
  if (execArgv.includes(LIFTOFF_FLAG)) return false;
  if (argv.includes("--help") || argv.includes("-h")) return false;
  const budget = flagValue(argv, "--rate-budget");
  if (budget !== undefined && !isPostgres(budget) && budget.trim() !== "memory") return true;
  const usesStore = argv.some((arg) => arg === "connect" || arg === "connections" || arg === "--connections");
  return usesStore && !isPostgres(flagValue(argv, "--store") ?? env.FDXKIT_STORE);
}

/**
 * Runs this command again in a child Node with the flag, its terminal and
 * environment inherited, and ends the way the child ends: its exit code, or
 * the signal that stopped it.
 */
export function relaunch(): void {
  // Loaded here: the command's own process (the child) never spawns one.
  const { spawn } = process.getBuiltinModule("node:child_process") as typeof import("node:child_process");
  const child = spawn(process.execPath, [...process.execArgv, LIFTOFF_FLAG, ...process.argv.slice(1)], { stdio: "inherit" });
  const forward = (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  // From a terminal, Ctrl-C reaches the child too (the whole foreground group
  // gets it); sent on, it would count as a second Ctrl-C, which stops an export
  // at once instead of cleanly. Without a terminal it came to this process alone.
  // isatty rather than process.stdin and friends, which this process would otherwise build only to ask.
  const { isatty } = process.getBuiltinModule("node:tty") as typeof import("node:tty");
  const fromTerminal = isatty(0) || isatty(1) || isatty(2);
  const onInterrupt = () => {
    if (!fromTerminal) forward("SIGINT");
  };
  const signals = ["SIGTERM", "SIGHUP"] as const;
  process.on("SIGINT", onInterrupt);
  for (const signal of signals) process.on(signal, forward);
  child.on("error", (error) => {
    process.stderr.write(`fdxkit: could not start ${process.execPath}: ${error.message}\n`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    if (signal) {
      process.off("SIGINT", onInterrupt);
      for (const own of signals) process.off(own, forward);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}
