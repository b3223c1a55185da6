import type { FdxClient, RateBudget } from "@fdxkit/client";
import type { Command } from "commander";
import { buildClient, resolveConfig, type CliHooks, type GlobalOptions, type ResolvedConfig } from "./config.js";
import type { ExitCode } from "./errors.js";
import type { Output } from "./output.js";

/** What a command's action works with. */
export interface Context {
  output: Output;
  options: GlobalOptions;
  /** The configured client; resolving the configuration may throw a UsageError. `hooks` and `rateBudget` count only on the first call. */
  client(hooks?: CliHooks, rateBudget?: RateBudget): FdxClient;
  /** `{ auth: false }`: no token of its own is needed (the calls use end users' connections). */
  config(needs?: { auth?: boolean }): ResolvedConfig;
}

/** Shared across the run: what the error handler needs to know about the configuration in use. */
export interface RunState {
  output: Output;
  env: Record<string, string | undefined>;
  tokenUrl?: string;
  /** Set by a command that finished without throwing but must not exit 0 (an export with failures). */
  exitCode?: ExitCode;
}

/** The context of a command's action: global options (before or after the subcommand) applied to the output. */
export function contextFor(command: Command, state: RunState): Context {
  const options = command.optsWithGlobals<GlobalOptions>();
  state.output.json = options.json === true;
  let config: ResolvedConfig | undefined;
  let client: FdxClient | undefined;
  const getConfig = (needs?: { auth?: boolean }) => {
    config ??= resolveConfig(options, state.env, needs);
    if (config.auth.kind === "client-credentials") state.tokenUrl = config.auth.tokenUrl;
    return config;
  };
  return {
    output: state.output,
    options,
    config: getConfig,
    client: (hooks, rateBudget) => (client ??= buildClient(getConfig(), state.output, hooks, rateBudget)),
  };
}
