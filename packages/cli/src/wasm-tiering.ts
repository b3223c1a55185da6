// The embedded store is PGlite: PostgreSQL compiled to WebAssembly. Node compiles
// a hot WebAssembly function again with its optimizing compiler on a background
// thread, and at exit (even through process.exit) it waits for any such compile
// still running; PostgreSQL's largest functions take seconds to optimize, longer
// than a whole command on a small store. With only V8's baseline compiler
// (Liftoff), the command ends when its work does.
import { setFlagsFromString } from "node:v8";
import { isPostgresUrl } from "./postgres-url.js";

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
 * store in a directory, or a `--rate-budget` directory). A wrong guess costs
 * time, never a result: the command runs the same either way.
 */
export function opensEmbeddedStore(argv: readonly string[], env: Env): boolean {
  if (argv.includes("--help") || argv.includes("-h")) return false;
  const budget = flagValue(argv, "--rate-budget");
  if (budget !== undefined && !isPostgres(budget) && budget.trim() !== "memory") return true;
  const usesStore = argv.some((arg) => arg === "connect" || arg === "connections" || arg === "--connections");
  return usesStore && !isPostgres(flagValue(argv, "--store") ?? env.FDXKIT_STORE);
}

/**
 * Keeps every WebAssembly module compiled from now on to the baseline
 * compiler: what `node --liftoff-only` does, which V8 reads only at start-up
 * (it stands for these two flags there, and alone later is ignored). Set in
 * the process rather than by starting a second Node with the flag, which cost
 * a whole Node start-up. Must run before the store's WebAssembly is compiled.
 */
export function keepWasmOnBaselineCompiler(): void {
  setFlagsFromString("--no-wasm-tier-up");
  setFlagsFromString("--no-wasm-dynamic-tiering");
}
