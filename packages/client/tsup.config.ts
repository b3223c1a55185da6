import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    webhooks: "src/webhooks/index.ts",
    node: "src/node/index.ts",
    auth: "src/auth/index.ts",
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
  // zod is bundled (its licence is in THIRD_PARTY_LICENSES.md): loaded from
  // node_modules it is some hundred ES modules, which made a cold import of
  // the webhooks entry take ~60 ms instead of ~7 ms — the cold start of every
  // serverless webhook receiver. Nothing of zod is in the public API or types.
  noExternal: ["zod"],
});
