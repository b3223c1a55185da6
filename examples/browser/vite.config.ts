import { defineConfig } from "vite";

export default defineConfig({
  server: { host: "127.0.0.1" },
  optimizeDeps: {
    // Pre-bundle the SDK's own dependencies up front: otherwise Vite finds them
    // on the first page load and reloads the page mid-session. The SDK itself
    // (a workspace link) stays unbundled, so a rebuild of it is never served stale.
    include: ["@fdxkit/client > openapi-fetch", "@fdxkit/client > zod/mini"],
  },
});
