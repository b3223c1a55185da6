#!/usr/bin/env node
// `pnpm dev`: the sandbox and the page in one command. Starts @fdxkit/mock on
// 127.0.0.1 and Vite's dev server, and hands the mock's URLs and token to the
// page as its env defaults (import.meta.env.VITE_FDX_*). The end-to-end test
// starts the same pair through `startExample`.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startMockServer } from "@fdxkit/mock";
import { createServer } from "vite";

const root = path.dirname(fileURLToPath(import.meta.url));

/**
 * @param {{ mockPort?: number; port?: number }} [options] 0 picks a free port.
 * @returns {Promise<{ url: string; mock: import("@fdxkit/mock").MockServer; close(): Promise<void> }>}
 */
export async function startExample({ mockPort = 0, port = 0 } = {}) {
  const mock = await startMockServer({ port: mockPort });
  /** @type {Record<string, string>} */
  const env = {
    VITE_FDX_BASE_URL: mock.baseUrl,
    VITE_FDX_PRODUCTS_URL: mock.productsUrl,
    VITE_FDX_TOKEN: mock.token,
    VITE_FDX_PROVIDER_ID: mock.seed.providerId,
    VITE_FDX_ACCOUNT_ID: mock.seed.accounts[0]?.accountId ?? "",
  };
  try {
    const vite = await createServer({
      root,
      configFile: path.join(root, "vite.config.ts"),
      logLevel: "warn",
      server: { port },
      // `define` on import.meta.env keys: no process.env mutation, so two instances can coexist.
      define: Object.fromEntries(Object.entries(env).map(([key, value]) => [`import.meta.env.${key}`, JSON.stringify(value)])),
    });
    await vite.listen();
    const url = vite.resolvedUrls?.local[0];
    if (!url) throw new Error("Vite did not report a local URL");
    return {
      url,
      mock,
      async close() {
        await Promise.all([vite.close(), mock.close()]);
      },
    };
  } catch (error) {
    await mock.close();
    throw error;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const example = await startExample({ mockPort: 4010, port: 5173 });
  console.log(`fdxkit browser example: ${example.url}
  mock base URL:     ${example.mock.baseUrl}
  mock products URL: ${example.mock.productsUrl}
  token:             ${example.mock.token}
Press Ctrl-C to stop.`);
  const stop = () => example.close().then(() => process.exit(0), () => process.exit(1));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
