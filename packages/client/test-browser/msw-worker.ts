// One msw service worker per test file (each file runs in its own page).
// The worker answers only for the fictional API host; everything else —
// including vitest's own module requests — passes through untouched.
import { setupWorker } from "msw/browser";
import { afterAll, afterEach, beforeAll } from "vitest";

export const API = "https://api.fdx.test";
export const TOKEN = "browser-secret-token";

export const worker = setupWorker();

/** Every request that reached the worker for the API host, in order. */
export const seen: Request[] = [];

worker.events.on("request:start", ({ request }) => {
  if (new URL(request.url).origin === API) seen.push(request);
});

beforeAll(async () => {
  await worker.start({
    quiet: true,
    serviceWorker: { url: "/mockServiceWorker.js" },
    onUnhandledRequest(request, print) {
      if (new URL(request.url).origin === API) print.error();
    },
  });
});
afterEach(() => {
  worker.resetHandlers();
  seen.length = 0;
});
afterAll(() => worker.stop());
