import { defineConfig } from "vite";

export default defineConfig({
  // The SDK has no runtime dependencies (zod is bundled into its dist), so
  // Vite has nothing to pre-bundle; the SDK itself (a workspace link) is
  // served unbundled, so a rebuild of it is never served stale.
  server: { host: "127.0.0.1" },
});
