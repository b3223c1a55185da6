import type { MockAppOptions, MockOptions, Transport } from "./app-types.js";
import { DEFAULT_BASE_URL, DEFAULT_DOCUMENTS_URL, DEFAULT_IDP_URL, DEFAULT_REDIRECT_URIS } from "./defaults.js";
import { DocumentSigner } from "./documents.js";
import { SANDBOX_TOKEN } from "./seed.js";
import type { Variations } from "./state.js";

// Checks of the options a mock is created with: a bad value throws a clear
// TypeError or RangeError at once, not a strange answer later.

function oneOf<T extends string>(name: string, value: T | undefined, allowed: readonly T[]): T {
  if (value === undefined) return allowed[0] as T;
  if (!allowed.includes(value)) throw new TypeError(`${name} must be ${allowed.map((a) => JSON.stringify(a)).join(" or ")}, got ${JSON.stringify(value)}`);
  return value;
}

export function positiveNumber(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a finite number > 0, got ${String(value)}`);
  return value;
}

export function checkRedirectUris(uris: readonly string[] | undefined): readonly string[] {
  if (uris === undefined) return DEFAULT_REDIRECT_URIS;
  if (!Array.isArray(uris) || uris.length === 0) throw new TypeError("redirectUris must be a non-empty array of absolute URLs");
  for (const uri of uris) {
    if (typeof uri !== "string" || !URL.canParse(uri) || uri.includes("#")) {
      throw new TypeError(`redirectUris must hold absolute URLs without a fragment, got ${JSON.stringify(uri)}`);
    }
  }
  return [...uris];
}

export function checkVariations(options: MockOptions): Variations & { latencyMs: number } {
  const latencyMs = options.latencyMs ?? 0;
  if (typeof latencyMs !== "number" || !Number.isFinite(latencyMs) || latencyMs < 0) {
    throw new RangeError(`latencyMs must be a finite number >= 0, got ${String(latencyMs)}`);
  }
  if (options.prevLinks !== undefined && typeof options.prevLinks !== "boolean") throw new TypeError("prevLinks must be a boolean");
  const required = options.requireActorType === undefined ? [] : options.requireActorType;
  if (!Array.isArray(required) || !required.every((id) => typeof id === "string" && id !== "")) {
    throw new TypeError("requireActorType must be an array of provider ids (non-empty strings)");
  }
  return {
    pagination: oneOf("pagination", options.pagination, ["links", "page"] as const),
    documents: oneOf("documents", options.documents, ["direct", "redirect"] as const),
    prevLinks: options.prevLinks ?? true,
    requireActorType: new Set(required),
    latencyMs,
  };
}

/** A URL without its trailing slashes, so that paths can be appended to it. */
export function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

/** The options of one mock instance, checked, with their defaults applied. */
export interface AppSettings {
  baseUrl: string;
  productsUrl: string;
  latencyMs: number;
  variations: Variations;
  /** Signs document URLs with `documents: "redirect"`. */
  documents: DocumentSigner | undefined;
  idpUrl: string;
  requireUserTokens: boolean;
  redirectUris: readonly string[];
  idTokenTtlMs: number;
  codeTtlMs: number;
  token: string;
}

/**
 * The settings of an app's options, or a TypeError or RangeError for the
 * first wrong one. The sandbox's origins must differ: documents refuse the
 * bearer token and the IdP is another service, and both are told apart from
 * the API by origin alone.
 */
export function readAppOptions(options: MockAppOptions, transport: Transport): AppSettings {
  const baseUrl = trimSlash(new URL(options.baseUrl ?? DEFAULT_BASE_URL).href);
  const productsUrl = trimSlash(new URL(options.productsUrl ?? `${baseUrl}/products`).href);
  const { latencyMs, ...variations } = checkVariations(options);
  let documents: DocumentSigner | undefined;
  if (variations.documents === "redirect") {
    documents = new DocumentSigner(options.documentsUrl ?? DEFAULT_DOCUMENTS_URL);
    if ([baseUrl, productsUrl].some((url) => new URL(url).origin === documents?.origin)) {
      throw new TypeError("documentsUrl must be another origin than baseUrl and productsUrl");
    }
  }
  const idpUrl = trimSlash(new URL(options.idpUrl ?? DEFAULT_IDP_URL).href);
  const idpOrigin = new URL(idpUrl).origin;
  if ([baseUrl, productsUrl, ...(documents ? [documents.origin] : [])].some((url) => new URL(url).origin === idpOrigin)) {
    throw new TypeError("idpUrl must be another origin than baseUrl, productsUrl and documentsUrl");
  }
  if (options.requireUserTokens !== undefined && typeof options.requireUserTokens !== "boolean") throw new TypeError("requireUserTokens must be a boolean");
  const requireUserTokens = options.requireUserTokens ?? false;
  const redirectUris = checkRedirectUris(options.redirectUris);
  const idTokenTtlMs = positiveNumber("idTokenTtlMs", options.idTokenTtlMs, 24 * 60 * 60 * 1000);
  const codeTtlMs = positiveNumber("codeTtlMs", options.codeTtlMs, 5 * 60 * 1000);
  if (options.idpIssuer !== undefined && (typeof options.idpIssuer !== "string" || !/^\S+$/.test(options.idpIssuer))) {
    throw new TypeError(`idpIssuer must be a non-empty string without spaces, got ${JSON.stringify(options.idpIssuer)}`);
  }
  const token = options.token ?? SANDBOX_TOKEN;
  if (options.webhookTls !== undefined && !transport.mutualTls) {
    throw new TypeError("webhookTls needs the real server (startMockServer): msw handlers deliver through fetch, with no TLS handshake");
  }
  return { baseUrl, productsUrl, latencyMs, variations, documents, idpUrl, requireUserTokens, redirectUris, idTokenTtlMs, codeTtlMs, token };
}
