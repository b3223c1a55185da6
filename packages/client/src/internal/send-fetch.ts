import type { Sender } from "./types.js";

/**
 * Sends with the client's `fetch`, else the platform's, looked up per call:
 * a fetch patched after the client was made (msw, polyfills) is honoured.
 * Called with (url, init) rather than a Request: the platform would copy a
 * Request, signal and all, so `fetch: globalThis.fetch`, how Node users
 * choose fetch, is called as the default is.
 */
export const sendFetch: Sender = (t, url, init, attempt) => {
  // A signal of the request's own, aborted when the attempt stops: it closes the connection (not only the wait).
  const controller = new AbortController();
  attempt.stopped.catch((reason: unknown) => controller.abort(reason));
  init.signal = controller.signal;
  return attempt.race(t.fetch && t.fetch !== globalThis.fetch ? t.fetch(new Request(url, init)) : globalThis.fetch(url, init));
};
