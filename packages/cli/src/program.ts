import { CommanderError, type Command } from "commander";
import { version } from "../package.json";
import { registerConnections } from "./commands/connect.js";
import { registerConsents } from "./commands/consents.js";
import { registerListen } from "./commands/listen.js";
import { registerMaintenance } from "./commands/maintenance.js";
import { registerStatements } from "./commands/statements.js";
import { registerSubscriptions } from "./commands/subscriptions.js";
import { FdxCommand } from "./command.js";
import { ENV, secretsFrom } from "./config.js";
import type { RunState } from "./context.js";
import { ExitCode, exitCodeFor } from "./errors.js";
import { Output, type Sink } from "./output.js";

/** The command tree. Global options may stand before or after the subcommand. */
export function buildProgram(state: RunState): FdxCommand {
  const { output } = state;
  const program = new FdxCommand("fdxkit")
    .description("Operations on an FDX notifications, consents and statements service, built on @fdxkit/client.")
    .version(version, "-V, --version")
    .option("--base-url <url>", `base URL: notifications and consents (env ${ENV.baseUrl})`)
    .option("--products-url <url>", `products URL: statements (default: the base URL) (env ${ENV.productsUrl})`)
    .option("--token <token>", `bearer token (prefer ${ENV.token}: flags show in the process list)`)
    .option("--token-url <url>", `OAuth 2.0 token endpoint, for the client-credentials grant (env ${ENV.tokenUrl})`)
    .option("--client-id <id>", `client id, for the client-credentials grant (env ${ENV.clientId})`)
    .option("--client-secret <secret>", `client secret (prefer ${ENV.clientSecret})`)
    .option("--scope <scope>", `scope(s) to request, space-separated (env ${ENV.scope})`)
    .option("--issuer <url>", `end users' identity provider (OpenID Connect issuer), for connect and connections (env ${ENV.issuer})`)
    .option("--client-secret-file <file>", `a file holding the client secret (keeps it out of the process list)`)
    .option("--store <url-or-dir>", `where connections are kept: a postgres:// URL or a directory (env ${ENV.store}; default $XDG_DATA_HOME/fdxkit)`)
    .option(
      "--plaintext-store",
      "keep end users' tokens unencrypted in the store (default: sealed with FDXKIT_ENCRYPTION_KEY, else a key in $XDG_CONFIG_HOME/fdxkit/key)",
    )
    .option("--allow-insecure-callback-urls", "permit http:// callback URLs to localhost, 127.0.0.1 and [::1] (local development)")
    .option("--max-retries <n>", "retries after a failed attempt (default 2)")
    .option("--timeout <ms>", "per-attempt timeout in milliseconds, until response headers (default 30000)")
    .option("--json", "machine-readable JSON on stdout (errors as JSON on stderr)")
    .option("-v, --verbose", "print METHOD URL -> status of every request on stderr (never headers)")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => output.stdout.write(output.redact(text)),
      writeErr: (text) => output.stderr.write(output.redact(text)),
    })
    .addHelpText(
      "after",
      `
Configuration: each flag, else its environment variable (${Object.values(ENV).join(", ")}).
Authentication: --token, or --token-url + --client-id + --client-secret [+ --scope].
Exit codes: 0 ok, 1 failure, 2 usage/validation, 3 authentication, 4 not found,
5 rate limited/maintenance, 6 network, 130 interrupted.`,
    );

  // After commander has rejected unknown options and before the action runs.
  program.hook("preAction", (_program, action: Command) => {
    if (action instanceof FdxCommand) action.checkRequired();
  });

  registerSubscriptions(program, state);
  registerMaintenance(program, state);
  registerConsents(program, state);
  registerStatements(program, state);
  registerListen(program, state);
  registerConnections(program, state);
  return program;
}

/** Runs the CLI on `argv` (without node and script) and resolves with the exit code. */
export async function run(argv: readonly string[], io: { env?: Record<string, string | undefined>; stdout?: Sink; stderr?: Sink } = {}): Promise<number> {
  const env = io.env ?? process.env;
  const output = new Output({ json: argv.includes("--json"), stdout: io.stdout, stderr: io.stderr });
  // Known before parsing, so that even a usage error never echoes a secret.
  output.addSecrets(...secretsFrom(argv, env));
  const state: RunState = { output, env };
  const program = buildProgram(state);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return state.exitCode ?? ExitCode.Ok;
  } catch (error) {
    // Commander has printed its own message (help, version, or what was wrong).
    if (error instanceof CommanderError) return exitCodeFor(error);
    output.error(error);
    return exitCodeFor(error, state.tokenUrl);
  }
}
