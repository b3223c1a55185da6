#!/usr/bin/env node
// `pnpm dev`: the sandbox and the page in one command. Builds the client and
// the mock when they changed, starts @fdxkit/mock on 127.0.0.1 and Vite's dev
// server, and hands the mock's URLs and token to the page as its env defaults
// (import.meta.env.VITE_FDX_*). The end-to-end test starts the same pair
// through `startExample`.
//
// One process, the build included: `pnpm dev` used to run `build && node
// dev.mjs` through a shell, and a wrapper stopped by a signal (a process
// manager, an IDE's stop button) left this process running, ports and all.
// It also stops when whatever started it goes away.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createServer } from "vite";

const root = path.dirname(fileURLToPath(import.meta.url));

/**
 * @param {{ mockPort?: number; port?: number }} [options] 0 picks a free port.
 * @returns {Promise<{ url: string; mock: import("@fdxkit/mock").MockServer; close(): Promise<void> }>}
 */
export async function startExample({ mockPort = 0, port = 0 } = {}) {
  // Imported here, not at the top: `pnpm dev` builds it first.
  const { startMockServer } = await import("@fdxkit/mock");
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
  // A short child, waited for: nothing of it outlives this step.
  const build = spawnSync(process.execPath, [path.join(root, "../../scripts/build-changed.mjs"), "client", "mock"], { stdio: "inherit" });
  if (build.status !== 0) process.exit(1);
  const example = await startExample({ mockPort: 4010, port: 5173 });
  console.log(`fdxkit browser example: ${example.url}
  mock base URL:     ${example.mock.baseUrl}
  mock products URL: ${example.mock.productsUrl}
  token:             ${example.mock.token}
Press Ctrl-C to stop.`);
  const stop = () =>
    example.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  process.once("SIGHUP", stop);
  // The wrapper that started us (pnpm, a shell) killed outright: we stop too. (Node reads
  // process.ppid once, so the parent is asked whether it is still there instead.)
  const parent = process.ppid;
  const watch = setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== "ESRCH") return;
      clearInterval(watch);
      void stop();
    }
  }, 500);
  watch.unref();
}
