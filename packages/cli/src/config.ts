import { clientCredentials, createClient, type ClientHooks, type FdxClient, type RateBudget, type TokenProvider } from "@fdxkit/client";
import { UsageError } from "./errors.js";
import type { Output } from "./output.js";
import { isPostgresUrl } from "./postgres-url.js";

/** The global options as commander parses them (all optional strings or booleans). */
export interface GlobalOptions {
  baseUrl?: string;
  productsUrl?: string;
  token?: string;
  tokenUrl?: string;
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  json?: boolean;
  verbose?: boolean;
  allowInsecureCallbackUrls?: boolean;
  maxRetries?: string;
  timeout?: string;
}

/** Environment variables read for each setting; a flag wins over its variable. */
export const ENV = {
  baseUrl: "FDXKIT_BASE_URL",
  productsUrl: "FDXKIT_PRODUCTS_URL",
  token: "FDXKIT_TOKEN",
  tokenUrl: "FDXKIT_TOKEN_URL",
  clientId: "FDXKIT_CLIENT_ID",
  clientSecret: "FDXKIT_CLIENT_SECRET",
  scope: "FDXKIT_SCOPE",
  issuer: "FDXKIT_ISSUER",
  store: "FDXKIT_STORE",
  encryptionKey: "FDXKIT_ENCRYPTION_KEY",
} as const;

type Env = Record<string, string | undefined>;

const CREDENTIAL_KEYS = ["tokenUrl", "clientId", "clientSecret", "scope"] as const;

export interface ResolvedConfig {
  baseUrl: string;
  productsUrl: string | undefined;
  /** `none`: every call's token comes from elsewhere (an end user's connection, through `withOptions`). */
  auth:
    | { kind: "token"; token: string }
    | { kind: "client-credentials"; tokenUrl: string; clientId: string; clientSecret: string; scope: string | undefined }
    | { kind: "none" };
  maxRetries: number | undefined;
  timeoutMs: number | undefined;
  allowInsecureCallbackUrls: boolean;
  verbose: boolean;
}

/** Secrets from the command line and the environment, known before parsing (so even a usage error can mask them). */
export function secretsFrom(argv: readonly string[], env: Env): string[] {
  const secrets = [env[ENV.token], env[ENV.clientSecret], env[ENV.encryptionKey], ...(env[ENV.encryptionKey] ?? "").split(/[,:]/)];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    for (const flag of ["--token", "--client-secret", "--store"]) {
      const value = arg === flag ? argv[i + 1] : arg.startsWith(`${flag}=`) ? arg.slice(flag.length + 1) : undefined;
      if (value === undefined) continue;
      // A store is secret only as a URL with a password in it.
      if (flag === "--store") secrets.push(...storePasswords(value));
      else secrets.push(value);
    }
  }
  secrets.push(...storePasswords(env[ENV.store]));
  return secrets.filter((s): s is string => typeof s === "string" && s !== "");
}

function storePasswords(value: string | undefined): string[] {
  if (!value || !isPostgresUrl(value)) return [];
  try {
    const { password } = new URL(value);
    return password ? [value, password, decodeURIComponent(password)] : [];
  } catch {
    return [value];
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/**
 * Settles the configuration: each setting from its flag, else its
 * environment variable. Authentication is a bearer token or the
 * client-credentials grant; whichever is given by flags wins over the
 * environment, and giving both at the same level is an error.
 */
export function resolveConfig(options: GlobalOptions, env: Env = process.env, needs: { auth?: boolean } = {}): ResolvedConfig {
  const fromEnv = (key: keyof typeof ENV) => nonEmpty(env[ENV[key]]);
  const baseUrl = nonEmpty(options.baseUrl) ?? fromEnv("baseUrl");
  if (!baseUrl) throw new UsageError(`no base URL: pass --base-url or set ${ENV.baseUrl}`);
  const productsUrl = nonEmpty(options.productsUrl) ?? fromEnv("productsUrl");

  const flagToken = nonEmpty(options.token);
  const flagCredentials = CREDENTIAL_KEYS.some((k) => nonEmpty(options[k]) !== undefined);
  const envToken = fromEnv("token");
  const envCredentials = CREDENTIAL_KEYS.some((k) => fromEnv(k) !== undefined);

  let auth: ResolvedConfig["auth"];
  const credentials = (): ResolvedConfig["auth"] => {
    const pick = (k: (typeof CREDENTIAL_KEYS)[number]) => nonEmpty(options[k]) ?? fromEnv(k);
    const tokenUrl = pick("tokenUrl");
    const clientId = pick("clientId");
    const clientSecret = pick("clientSecret");
    const missing = [
      tokenUrl ? undefined : `--token-url (${ENV.tokenUrl})`,
      clientId ? undefined : `--client-id (${ENV.clientId})`,
      clientSecret ? undefined : `--client-secret (${ENV.clientSecret})`,
    ].filter(Boolean);
    if (missing.length) throw new UsageError(`client credentials incomplete: missing ${missing.join(", ")}`);
    return { kind: "client-credentials", tokenUrl: tokenUrl!, clientId: clientId!, clientSecret: clientSecret!, scope: pick("scope") };
  };
  if (needs.auth === false) auth = { kind: "none" };
  else if (flagToken && flagCredentials) throw new UsageError("give either --token or the client-credentials flags, not both");
  else if (flagToken) auth = { kind: "token", token: flagToken };
  else if (flagCredentials) auth = credentials();
  else if (envToken && envCredentials) throw new UsageError(`set either ${ENV.token} or the client-credentials variables, not both`);
  else if (envToken) auth = { kind: "token", token: envToken };
  else if (envCredentials) auth = credentials();
  else {
    throw new UsageError(
      `no credentials: pass --token (or set ${ENV.token}), or --token-url, --client-id and --client-secret (or ${ENV.tokenUrl}, ${ENV.clientId}, ${ENV.clientSecret})`,
    );
  }

  return {
    baseUrl,
    productsUrl,
    auth,
    maxRetries: integerOption("--max-retries", options.maxRetries, 0),
    timeoutMs: integerOption("--timeout", options.timeout, 1),
    allowInsecureCallbackUrls: options.allowInsecureCallbackUrls === true,
    verbose: options.verbose === true,
  };
}

/** An integer flag value >= min, or undefined when not given. */
export function integerOption(flag: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(number) || number < min) {
    throw new UsageError(`${flag} must be an integer >= ${min} (got ${JSON.stringify(value)})`);
  }
  return number;
}

/**
 * A fetch that prints `METHOD URL -> STATUS (ms)` for the token request, which
 * the client's hooks do not see: never headers or bodies, so neither the
 * Basic credentials nor the access token can show.
 */
export function verboseFetch(output: Output): (input: Request) => Promise<Response> {
  return async (request) => {
    const started = performance.now();
    const label = `${request.method} ${request.url}`;
    try {
      const response = await globalThis.fetch(request);
      output.info(`> ${label} -> ${response.status} (${Math.round(performance.now() - started)} ms)`);
      return response;
    } catch (error) {
      const reason = error instanceof Error && error.name === "AbortError" ? "aborted" : "failed";
      output.info(`> ${label} -> ${reason} (${Math.round(performance.now() - started)} ms)`);
      throw error;
    }
  };
}

/**
 * `--verbose` through the client's hooks: a line per attempt that got an
 * answer, and one per retry. The hooks never see the token, and print no
 * header or body.
 */
export function verboseHooks(output: Output, hooks: CliHooks): CliHooks {
  return {
    ...hooks,
    onResponse: async (e) => {
      output.info(`> ${e.method} ${e.url} -> ${e.status} (${Math.round(e.durationMs)} ms, attempt ${e.attempt}, id ${e.interactionId ?? "none"})`);
      await hooks.onResponse?.(e);
    },
    onRetry: async (e) => {
      output.info(`> ${e.method} ${e.url}: attempt ${e.attempt} failed (${e.error.name}), retrying in ${e.delayMs} ms`);
      await hooks.onRetry?.(e);
    },
  };
}

/** The client's hooks a command may set: the export reads the 429s through `onRetry`. */
export type CliHooks = ClientHooks;

/** The client for a resolved configuration. Registers its secrets with the output first. `rateBudget`: the export's. */
export function buildClient(config: ResolvedConfig, output: Output, hooks: CliHooks = {}, rateBudget?: RateBudget): FdxClient {
  const fetch = config.verbose ? verboseFetch(output) : undefined;
  const clientHooks = config.verbose ? verboseHooks(output, hooks) : hooks;
  let token: TokenProvider;
  if (config.auth.kind === "token") {
    output.addSecrets(config.auth.token);
    token = config.auth.token;
  } else if (config.auth.kind === "none") {
    token = () => {
      throw new UsageError("this command has no token of its own: each call names the connection whose token it uses");
    };
  } else {
    const { tokenUrl, clientId, clientSecret, scope } = config.auth;
    output.addSecrets(clientSecret);
    const fetchToken = clientCredentials({ tokenUrl, clientId, clientSecret, scope, ...(fetch ? { fetch } : {}) });
    // The access token it obtains is a secret too.
    token = async (context) => {
      const value = await fetchToken(context);
      output.addSecrets(value);
      return value;
    };
  }
  return createClient({
    baseUrl: config.baseUrl,
    ...(config.productsUrl ? { productsUrl: config.productsUrl } : {}),
    token,
    ...(config.maxRetries !== undefined ? { maxRetries: config.maxRetries } : {}),
    ...(config.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
    allowInsecureCallbackUrls: config.allowInsecureCallbackUrls,
    hooks: clientHooks,
    ...(rateBudget ? { rateBudget } : {}),
  });
}
