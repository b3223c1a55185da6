import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: { index: "src/index.ts", server: "src/server-entry.ts" },
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    sourcemap: true,
    target: "es2022",
    platform: "node",
  },
  {
    // Without the node:http server, for browsers (`setupWorker`).
    entry: { browser: "src/browser.ts" },
    format: ["esm"],
    dts: true,
    sourcemap: true,
    target: "es2022",
    platform: "browser",
    external: ["msw", "pdf-lib"],
  },
  {
    entry: { cli: "src/cli.ts" },
    format: ["esm"],
    sourcemap: true,
    target: "es2022",
    platform: "node",
    banner: { js: "#!/usr/bin/env node" },
  },
]);
