// The IdP client and connection manager the connection commands share: the
// OAuth client's credentials from flags or environment, the store from
// --store / FDXKIT_STORE.
import { readFile } from "node:fs/promises";
import { createAuthClient, createConnections, type AuthClient, type Connections } from "@fdxkit/client/auth";
import { ENV, type GlobalOptions } from "../config.js";
import { UsageError } from "../errors.js";
import type { Output } from "../output.js";
import { openStore, type OpenStore } from "./store.js";

type Env = Record<string, string | undefined>;

/** What the connection commands read beyond the global options. */
export interface ConnectionOptions extends GlobalOptions {
  issuer?: string;
  clientSecretFile?: string;
  store?: string;
  /** --plaintext-store: keep the tokens unencrypted (the explicit opt-out). */
  plaintextStore?: boolean;
}

export interface Manager {
  auth: AuthClient;
  connections: Connections;
  store: OpenStore;
  close(): Promise<void>;
}

const nonEmpty = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value.trim());

/** The OAuth client's credentials: --issuer, --client-id, --client-secret-file (or --client-secret), else the environment. */
export async function idpCredentials(
  options: ConnectionOptions,
  env: Env,
  output: Output,
): Promise<{ issuer: string; clientId: string; clientSecret: string }> {
  const issuer = nonEmpty(options.issuer) ?? nonEmpty(env[ENV.issuer]);
  const clientId = nonEmpty(options.clientId) ?? nonEmpty(env[ENV.clientId]);
  let clientSecret = nonEmpty(options.clientSecret);
  if (options.clientSecretFile !== undefined) {
    if (clientSecret) throw new UsageError("give either --client-secret-file or --client-secret, not both");
    try {
      clientSecret = nonEmpty(await readFile(options.clientSecretFile, "utf8"));
    } catch (error) {
      throw new UsageError(`--client-secret-file: cannot read ${options.clientSecretFile} (${(error as NodeJS.ErrnoException).code ?? "error"})`);
    }
    if (!clientSecret) throw new UsageError(`--client-secret-file: ${options.clientSecretFile} is empty`);
  }
  clientSecret ??= nonEmpty(env[ENV.clientSecret]);
  const missing = [
    issuer ? undefined : `--issuer (${ENV.issuer})`,
    clientId ? undefined : `--client-id (${ENV.clientId})`,
    clientSecret ? undefined : `--client-secret-file (${ENV.clientSecret})`,
  ].filter(Boolean);
  if (missing.length) throw new UsageError(`the identity provider's client is not configured: missing ${missing.join(", ")}`);
  output.addSecrets(clientSecret!);
  return { issuer: issuer!, clientId: clientId!, clientSecret: clientSecret! };
}

/**
 * The manager over the configured store. `redirectUri` matters only to `connect`
 * (the others never send one). Every token the manager hands out is registered
 * with the output as a secret.
 */
export async function openManager(options: ConnectionOptions, env: Env, output: Output, redirectUri = "http://127.0.0.1/callback"): Promise<Manager> {
  const credentials = await idpCredentials(options, env, output);
  const timeoutMs = options.timeout === undefined ? undefined : Number(options.timeout);
  let auth: AuthClient;
  try {
    auth = createAuthClient({ ...credentials, redirectUri, ...(timeoutMs !== undefined && Number.isInteger(timeoutMs) ? { timeoutMs } : {}) });
  } catch (error) {
    throw new UsageError(`--issuer: ${(error as Error).message}`, { cause: error });
  }
  const store = await openStore(
    options.store,
    env,
    { addSecrets: (...values) => output.addSecrets(...values), info: (text) => output.info(text) },
    { plaintext: options.plaintextStore === true },
  );
  const connections = createConnections({
    auth,
    store: store.store,
  });
  return { auth, connections, store, close: () => store.close() };
}
