import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    webhooks: "src/webhooks/index.ts",
    node: "src/node/index.ts",
  },
  format: ["esm", "cjs"],
  // Shared chunks keep one copy of the error classes per format, so
  // `instanceof` holds across the three entries.
  splitting: true,
  dts: true,
  clean: true,
  sourcemap: true,
  target: "es2022",
  platform: "neutral",
  external: [/^node:/],
});
