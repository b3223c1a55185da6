import type { DeliveryQueue } from "./delivery.js";
import type { Subscription } from "./types.js";

/** What the routes of one mock instance share. */
export interface AppState {
  /** Absolute base URL without a trailing slash (links in notifications use it). */
  readonly baseUrl: string;
  /** Path of `productsUrl` without a trailing slash ("" at the root): statement hrefs start with it. */
  readonly productsPath: string;
  readonly subscriptions: Map<string, Subscription>;
  readonly deliveries: DeliveryQueue;
  readonly pdfCache: Map<string, Promise<Uint8Array>>;
}
