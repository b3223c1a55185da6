#!/usr/bin/env node
// `node examples/connect-bank/server.mjs`: the app on http://127.0.0.1:3000.
// With no FDX_ISSUER set, the sandbox (@fdxkit/mock, with its identity
// provider) runs in this process and the app connects to it; with FDX_ISSUER
// and the variables below, it connects to that IdP and service instead (a
// real network, or one sandbox several instances share).
// With DATABASE_URL, connections and webhook claims live in PostgreSQL, and
// SESSION_SECRET, LOGIN_KEYS and TOKEN_KEYS must be the same on every
// instance; without it, one instance keeps them in memory.
// The end-to-end tests start the same app through `startConnectBank`, and
// as child processes.
import { randomBytes } from "node:crypto";
import http from "node:http";
import { pathToFileURL } from "node:url";
import { createClient } from "@fdxkit/client";
import { createAuthClient, createConnections, encryptConnectionStore, memoryConnectionStore } from "@fdxkit/client/auth";
import { memoryDedupe } from "@fdxkit/client/webhooks";
import { createConnectBankApp } from "./app.mjs";
import { createWebhookListener } from "./webhooks.mjs";

/**
 * @typedef {object} ConnectBank
 * @property {string} url the app's address, to open in a browser
 * @property {string} listening where this instance listens (differs from `url` behind a load balancer)
 * @property {import("@fdxkit/mock").MockServer | undefined} mock the in-process sandbox, when no real IdP is configured
 * @property {import("@fdxkit/client/auth").Connections} connections the app's connections
 * @property {() => Promise<void>} close
 */

/**
 * Starts the app (and the sandbox, unless `env` names a real IdP).
 * @param {{ port?: number; host?: string; env?: Record<string, string | undefined> }} [options] port 0 picks a free one
 * @returns {Promise<ConnectBank>}
 */
export async function startConnectBank({ port = 0, host = "127.0.0.1", env = process.env } = {}) {
  const server = http.createServer();
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(undefined));
  });
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  // The redirect URI must be known before the auth client is made, so the port is taken first.
  const publicUrl = env.PUBLIC_URL ?? `http://${host}:${address.port}`;

  /** @type {import("@fdxkit/mock").MockServer | undefined} */
  let mock;
  /** @type {(() => Promise<void>) | undefined} */
  let closeShared;
  try {
    /** @type {{ baseUrl: string; productsUrl?: string | undefined; token: string; issuer: string; clientId: string; clientSecret: string; connector: string }} */
    let config;
    if (env.FDX_ISSUER) {
      config = {
        baseUrl: required(env, "FDX_BASE_URL", FDX_WHY),
        productsUrl: env.FDX_PRODUCTS_URL,
        token: required(env, "FDX_TOKEN", FDX_WHY),
        issuer: env.FDX_ISSUER,
        clientId: required(env, "FDX_CLIENT_ID", FDX_WHY),
        clientSecret: required(env, "FDX_CLIENT_SECRET", FDX_WHY),
        connector: required(env, "FDX_CONNECTOR", FDX_WHY),
      };
    } else {
      // Imported only here: a deployment against a real IdP needs no sandbox installed.
      const { startMockServer } = await import("@fdxkit/mock/server");
      // As the real service: statements answer only to an end user's id token (401 602 otherwise).
      mock = await startMockServer({ requireUserTokens: true, port: Number(env.FDX_MOCK_PORT ?? 0) });
      config = {
        baseUrl: mock.baseUrl,
        productsUrl: mock.productsUrl,
        token: mock.token,
        issuer: mock.idpUrl,
        clientId: mock.clientId,
        clientSecret: mock.clientSecret,
        // The sandbox's seeded statements live under this provider id.
        connector: mock.seed.providerId,
      };
    }
    // Every call has a user waiting on a page: providers that prioritise by FDX-API-Actor-Type serve it first.
    const client = createClient({ baseUrl: config.baseUrl, productsUrl: config.productsUrl, token: config.token, actorType: "user" });
    const auth = createAuthClient({
      issuer: config.issuer,
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      redirectUri: `${publicUrl}/callback`,
    });
    const shared = await sharedState(env);
    closeShared = shared.close;
    const connections = createConnections({ auth, store: shared.store });
    const webhooks = createWebhookListener({ client, connections, dedupe: shared.dedupe });
    server.on(
      "request",
      createConnectBankApp({
        client,
        auth,
        connections,
        connector: config.connector,
        publicUrl,
        sessionSecret: shared.sessionSecret,
        loginKeys: shared.loginKeys,
        webhooks,
      }),
    );
    return {
      url: `${publicUrl}/`,
      listening: `http://${host}:${address.port}`,
      mock,
      connections,
      async close() {
        server.closeAllConnections();
        await Promise.all([new Promise((resolve) => server.close(() => resolve(undefined))), mock?.close()]);
        await shared.close();
      },
    };
  } catch (error) {
    server.close();
    await Promise.all([mock?.close(), closeShared?.()]);
    throw error;
  }
}

/**
 * What the instances share: with DATABASE_URL, the PostgreSQL tables and the secrets from the environment;
 * without it, one instance's memory and secrets made up at start.
 * @param {Record<string, string | undefined>} env
 */
async function sharedState(env) {
  if (!env.DATABASE_URL) {
    return {
      store: memoryConnectionStore(),
      dedupe: memoryDedupe(),
      sessionSecret: env.SESSION_SECRET ?? randomBytes(32).toString("base64url"),
      loginKeys: env.LOGIN_KEYS ? parseKeys("LOGIN_KEYS", env.LOGIN_KEYS) : { keys: { local: randomBytes(32).toString("base64") }, current: "local" },
      close: async () => {},
    };
  }
  // Imported only here: the single-instance quick start needs no database driver.
  const [{ default: pg }, { postgresConnectionStore, postgresDedupe }] = await Promise.all([import("pg"), import("@fdxkit/postgres")]);
  const sessionSecret = required(env, "SESSION_SECRET", "DATABASE_URL is set: every instance must share it");
  const loginKeys = parseKeys("LOGIN_KEYS", required(env, "LOGIN_KEYS", "DATABASE_URL is set: every instance must share them"));
  const tokenKeys = parseKeys("TOKEN_KEYS", required(env, "TOKEN_KEYS", "DATABASE_URL is set: the tokens are stored encrypted"));
  const pool = new pg.Pool({ connectionString: env.DATABASE_URL });
  return {
    // The users' tokens are encrypted before they reach the database.
    store: encryptConnectionStore(postgresConnectionStore(pool), tokenKeys),
    // Of two instances given the same delivery, one handles it.
    dedupe: postgresDedupe(pool),
    sessionSecret,
    loginKeys,
    close: () => pool.end(),
  };
}

/**
 * Keys as `id:base64[,id:base64…]`; the first one seals or encrypts, the others still open (key rotation).
 * @param {string} name
 * @param {string} value
 * @returns {{ keys: Record<string, string>; current: string }}
 */
export function parseKeys(name, value) {
  /** @type {Record<string, string>} */
  const keys = {};
  for (const part of value.split(",")) {
    const colon = part.indexOf(":");
    if (colon < 1) throw new Error(`${name}: write each key as id:base64 (e.g. k1:$(openssl rand -base64 32)), separated by commas.`);
    keys[part.slice(0, colon).trim()] = part.slice(colon + 1).trim();
  }
  return { keys, current: /** @type {string} */ (Object.keys(keys)[0]) };
}

const FDX_WHY = "FDX_ISSUER is set, so that IdP and service are used";

/**
 * @param {Record<string, string | undefined>} env
 * @param {string} name
 * @param {string} why
 */
function required(env, name, why) {
  const value = env[name];
  if (!value) throw new Error(`Set ${name} (${why}).`);
  return value;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const app = await startConnectBank({ port: Number(process.env.PORT ?? 3000) });
  const sandbox = app.mock?.seed.users[0];
  console.log(`Connect your bank: open ${app.url}`);
  if (new URL(app.url).origin !== app.listening) console.log(`  this instance listens on ${app.listening}`);
  if (app.mock && sandbox) console.log(`  sandbox IdP ${app.mock.idpUrl}: sign in as ${sandbox.username} / ${sandbox.password}`);
  console.log("Press Ctrl-C to stop.");
  const stop = () =>
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
