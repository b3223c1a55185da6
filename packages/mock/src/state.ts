import type { DeliveryQueue } from "./delivery.js";
import type { DocumentSigner } from "./documents.js";
import type { ConsentGrant, Subscription } from "./types.js";

/** How this instance pages and serves documents (see `MockOptions`). */
export interface Variations {
  pagination: "links" | "page";
  prevLinks: boolean;
  documents: "direct" | "redirect";
  /** Providers whose statement calls must say who is asking (`FDX-API-Actor-Type`). */
  requireActorType: ReadonlySet<string>;
}

/** What the routes of one mock instance share. */
export interface AppState {
  /** Absolute base URL without a trailing slash (links in notifications use it). */
  readonly baseUrl: string;
  /** Path of `productsUrl` without a trailing slash ("" at the root): statement hrefs start with it. */
  readonly productsPath: string;
  readonly subscriptions: Map<string, Subscription>;
  /** Consent grants of this instance (the identity provider's, and seeded ones it revoked), oldest first; they win over the seed. */
  readonly consents: Map<string, ConsentGrant>;
  readonly deliveries: DeliveryQueue;
  readonly pdfCache: Map<string, Promise<Uint8Array>>;
  readonly variations: Variations;
  /** Signs and checks document URLs when `documents` is `"redirect"`. */
  readonly documents: DocumentSigner | undefined;
}
