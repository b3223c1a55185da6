/// <reference types="vite/client" />

// Defaults for the settings form, read at build time. `pnpm dev` fills them
// from the mock server it starts; a `.env.local` file can set them too.
interface ImportMetaEnv {
  readonly VITE_FDX_BASE_URL?: string;
  readonly VITE_FDX_PRODUCTS_URL?: string;
  readonly VITE_FDX_TOKEN?: string;
  readonly VITE_FDX_PROVIDER_ID?: string;
  readonly VITE_FDX_ACCOUNT_ID?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
