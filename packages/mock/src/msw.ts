import { http, type HttpHandler } from "msw";
import { createMockApp, type MockApp, type MockAppOptions } from "./app.js";

/** Options of {@link createMockHandlers}. */
export interface MockHandlersOptions extends MockAppOptions {
  /** Serve an existing app (e.g. `server.app`) instead of a new one. */
  app?: MockApp;
}

/** msw handlers with the mock they serve, for its controls (`handlers.mock.setMaintenance(true)`). */
export type MockHandlers = HttpHandler[] & { readonly mock: MockApp };

/**
 * msw request handlers that answer `baseUrl` (default `https://sandbox.fdxkit.test`)
 * and `productsUrl` (default `baseUrl` + `/products`) from one in-memory mock,
 * the identity provider at `idpUrl` (default `https://idp.sandbox.fdxkit.test`),
 * and with `documents: "redirect"` its `documentsUrl` (default
 * `https://documents.sandbox.fdxkit.test`).
 *
 * @example
 * const handlers = createMockHandlers();
 * const server = setupServer(...handlers);
 * server.listen();
 * handlers.mock.setMaintenance(true);
 */
export function createMockHandlers(options: MockHandlersOptions = {}): MockHandlers {
  const { app: given, ...appOptions } = options;
  const app = given ?? createMockApp(appOptions);
  const prefixes = [...new Set([app.productsUrl, app.baseUrl, app.idpUrl, ...(app.documentsUrl ? [app.documentsUrl] : [])])];
  const handlers = prefixes.map((prefix) => http.all(`${prefix}/*`, ({ request }) => app.fetch(request)));
  return Object.assign(handlers, { mock: app });
}
