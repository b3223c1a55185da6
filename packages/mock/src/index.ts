/**
 * @fdxkit/mock: an in-memory sandbox of the FDX notifications, consents and
 * statements service, served as a real HTTP server (`startMockServer`) or as
 * msw handlers (`createMockHandlers`). msw is an optional peer dependency:
 * this entry imports it; `@fdxkit/mock/server` does not.
 * @module @fdxkit/mock
 */
export * from "./browser.js";
export { startMockServer } from "./server.js";
export type { MockServer, MockServerOptions } from "./server.js";
