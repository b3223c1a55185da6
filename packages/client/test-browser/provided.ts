// What global-setup.ts (Node) hands to the browser tests through
// `project.provide` / `inject`: plain JSON, the addresses of real mock servers.
export interface BrowserMockInfo {
  baseUrl: string;
  productsUrl: string;
  token: string;
  providerId: string;
  accountIds: string[];
  consentIds: string[];
  maintenanceIds: string[];
  /** A second server, switched into scheduled maintenance (every call 503). */
  maintenanceBaseUrl: string;
  /** A third server allowing one request per minute (then 429 with Retry-After). */
  rateLimitedBaseUrl: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    fdxMock: BrowserMockInfo;
  }
}
