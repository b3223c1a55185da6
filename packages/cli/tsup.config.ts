import { defineConfig } from "tsup";

export default defineConfig({
  entry: { cli: "src/cli.ts" },
  format: ["esm"],
  clean: true,
  sourcemap: true,
  target: "es2022",
  platform: "node",
  // Dependencies stay external: installed beside the CLI, as package.json says.
  banner: { js: "#!/usr/bin/env node" },
});
