#!/usr/bin/env node
// `node examples/connect-bank/server.mjs`: the app on http://127.0.0.1:3000.
// With no FDX_ISSUER set, the sandbox (@fdxkit/mock, with its identity
// provider) runs in this process and the app connects to it; with FDX_ISSUER
// and the variables below, it connects to a real network instead.
// The end-to-end test starts the same app through `startConnectBank`.
import http from "node:http";
import { pathToFileURL } from "node:url";
import { createClient } from "@fdxkit/client";
import { createAuthClient, createConnections, memoryConnectionStore } from "@fdxkit/client/auth";
import { createConnectBankApp } from "./app.mjs";

/**
 * @typedef {object} ConnectBank
 * @property {string} url the app's address, to open in a browser
 * @property {import("@fdxkit/mock").MockServer | undefined} mock the in-process sandbox, when no real IdP is configured
 * @property {import("@fdxkit/client/auth").Connections} connections the app's connections (a memory store)
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
  try {
    /** @type {{ baseUrl: string; productsUrl?: string | undefined; token: string; issuer: string; clientId: string; clientSecret: string; connector: string }} */
    let config;
    if (env.FDX_ISSUER) {
      config = {
        baseUrl: required(env, "FDX_BASE_URL"),
        productsUrl: env.FDX_PRODUCTS_URL,
        token: required(env, "FDX_TOKEN"),
        issuer: env.FDX_ISSUER,
        clientId: required(env, "FDX_CLIENT_ID"),
        clientSecret: required(env, "FDX_CLIENT_SECRET"),
        connector: required(env, "FDX_CONNECTOR"),
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
    const client = createClient({ baseUrl: config.baseUrl, productsUrl: config.productsUrl, token: config.token });
    const auth = createAuthClient({ issuer: config.issuer, clientId: config.clientId, clientSecret: config.clientSecret, redirectUri: `${publicUrl}/callback` });
    const connections = createConnections({ auth, store: memoryConnectionStore() });
    server.on("request", createConnectBankApp({ client, auth, connections, connector: config.connector, publicUrl }));
    return {
      url: `${publicUrl}/`,
      mock,
      connections,
      async close() {
        server.closeAllConnections();
        await Promise.all([new Promise((resolve) => server.close(() => resolve(undefined))), mock?.close()]);
      },
    };
  } catch (error) {
    server.close();
    await mock?.close();
    throw error;
  }
}

/**
 * @param {Record<string, string | undefined>} env
 * @param {string} name
 */
function required(env, name) {
  const value = env[name];
  if (!value) throw new Error(`Set ${name} (FDX_ISSUER is set, so a real network is used).`);
  return value;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const app = await startConnectBank({ port: Number(process.env.PORT ?? 3000) });
  const sandbox = app.mock?.seed.users[0];
  console.log(`Connect your bank: open ${app.url}`);
  if (app.mock && sandbox) console.log(`  sandbox IdP ${app.mock.idpUrl}: sign in as ${sandbox.username} / ${sandbox.password}`);
  console.log("Press Ctrl-C to stop.");
  const stop = () => app.close().then(() => process.exit(0), () => process.exit(1));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
