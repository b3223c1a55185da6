// The crash window of each refresh, measured from outside the connection
// manager: an AuthClient that notes when each refresh's new pair is in hand,
// and a store that notes when that pair's write is done. What lies between is
// the window in which a process that dies loses the pair (the IdP has already
// spent the old refresh token). The IdP's answer still travelling to the
// process comes on top (a fraction of a millisecond on loopback).
import { performance } from "node:perf_hooks";

/** Wraps `auth` and `store`; `windowsMs` collects one figure per refresh whose write is done. */
export function timed(auth, store) {
  const answered = new Map();
  const windowsMs = [];
  return {
    windowsMs,
    auth: {
      clientId: auth.clientId,
      issuer: () => auth.issuer(),
      authorizationUrl: (options) => auth.authorizationUrl(options),
      exchangeCode: (...args) => auth.exchangeCode(...args),
      revoke: (...args) => auth.revoke(...args),
      async refresh(refreshToken, options) {
        const set = await auth.refresh(refreshToken, options);
        answered.set(set.refreshToken, performance.now());
        return set;
      },
    },
    store: {
      get: (id) => store.get(id),
      delete: (id) => store.delete(id),
      list: () => store.list(),
      findByConsentId: (id) => store.findByConsentId(id),
      async compareAndSet(id, expected, next) {
        const written = await store.compareAndSet(id, expected, next);
        const at = answered.get(next.refreshToken);
        if (written && at !== undefined) {
          windowsMs.push(performance.now() - at);
          answered.delete(next.refreshToken);
        }
        return written;
      },
    },
  };
}
