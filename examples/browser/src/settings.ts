// Where the page's settings come from: the query string first (so a link can
// point the page anywhere), then the build-time env defaults.

export interface Settings {
  baseUrl: string;
  productsUrl: string;
  token: string;
  providerId: string;
  accountId: string;
  limit: number;
}

export const FIELDS = ["baseUrl", "productsUrl", "token", "providerId", "accountId", "limit"] as const;

const DEFAULT_LIMIT = 6;

export function readSettings(search: string, env: ImportMetaEnv): Settings {
  const query = new URLSearchParams(search);
  const pick = (key: (typeof FIELDS)[number], fallback: string | undefined) => query.get(key) ?? fallback ?? "";
  const baseUrl = pick("baseUrl", env.VITE_FDX_BASE_URL ?? "http://127.0.0.1:4010");
  const limit = Number(pick("limit", String(DEFAULT_LIMIT)));
  return {
    baseUrl,
    // Empty means "same as baseUrl", which is also the SDK's default.
    productsUrl: pick("productsUrl", env.VITE_FDX_PRODUCTS_URL),
    token: pick("token", env.VITE_FDX_TOKEN),
    providerId: pick("providerId", env.VITE_FDX_PROVIDER_ID ?? "sandbox-bank"),
    accountId: pick("accountId", env.VITE_FDX_ACCOUNT_ID ?? "ACC-1001"),
    limit: Number.isInteger(limit) && limit > 0 ? limit : DEFAULT_LIMIT,
  };
}

/** Fills the form's inputs (named after the settings) with `settings`. */
export function fillForm(form: HTMLFormElement, settings: Settings): void {
  for (const key of FIELDS) {
    const input = form.elements.namedItem(key);
    if (input instanceof HTMLInputElement) input.value = String(settings[key]);
  }
}

/** Reads the form back; the same validation as the query string. */
export function readForm(form: HTMLFormElement): Settings {
  const data = new FormData(form);
  const query = new URLSearchParams();
  for (const key of FIELDS) query.set(key, String(data.get(key) ?? "").trim());
  return readSettings(`?${query}`, {} as ImportMetaEnv);
}
