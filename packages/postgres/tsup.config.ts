import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "es2022",
  platform: "node",
  // Peers: the app brings its own client, driver and error classes.
  external: ["@fdxkit/client", "pg", "@electric-sql/pglite"],
});
