/**
 * @fdxkit/mock: an in-memory sandbox of the FDX notifications, consents and
 * statements service, served as a real HTTP server (`startMockServer`) or as
 * msw handlers (`createMockHandlers`; msw is an optional peer dependency,
 * needed only by that function's module).
 * @packageDocumentation
 */
export * from "./browser.js";
export { startMockServer } from "./server.js";
export type { MockServer, MockServerOptions } from "./server.js";
