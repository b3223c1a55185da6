// End users' connections: one rotating refresh token per connection, shared
// by every process on one store, so a refresh is single flight in a process
// and leased by compare-and-set across processes, and the tokens of a
// refresh are never dropped once the IdP has answered.
//
// What no store can close: a process that dies between the IdP's answer and
// its write loses the new pair, and the stored refresh token is spent; the
// next refresh then ends in `reauthorization_required`. The window is one
// store write long.
//
// This module wires the steps together; each lives in ./connections/.
import { applyNotification } from "./notification.js";
import { complete } from "./connections/complete.js";
import { consentSteps } from "./connections/consent.js";
import { createContext } from "./connections/context.js";
import { checkId, readOptions } from "./connections/options.js";
import { refreshNow } from "./connections/refresh.js";
import { revoke } from "./connections/revoke.js";
import { token } from "./connections/token.js";
import type { Connections, ConnectionsOptions } from "./connections/types.js";

export type { Connections, ConnectionsOptions, RefreshOptions } from "./connections/types.js";

/**
 * End users' connections on a store: `complete` stores the result of an
 * authorization, `token(id)` hands out the user's id token for
 * `createClient({ token })` — from memory on the hot path, refreshed before
 * expiry, and once more after a rejection — with one refresh at a time per
 * connection in a process and across processes (a lease by compare-and-set).
 * A refresh the IdP refuses with `invalid_grant` or `invalid_request`, when
 * the store holds nothing newer, ends the connection:
 * `FdxReauthorizationRequiredError`.
 *
 * @example
 * const connections = createConnections({ auth, store: memoryConnectionStore() });
 * await connections.complete("user-42", callbackUrl, { state, codeVerifier, nonce });
 * const user = client.withOptions({ token: connections.token("user-42") });
 */
export function createConnections(options: ConnectionsOptions): Connections {
  const ctx = createContext(readOptions(options));
  const { rows } = ctx;
  const { store } = ctx.settings;
  const consent = consentSteps(ctx);

  return {
    complete: (idOrName, callbackUrl, checks) => complete(ctx, idOrName, callbackUrl, checks),

    async get(id) {
      checkId(id);
      const row = await rows.read(id);
      return row && rows.checkOwn(row);
    },

    async *list() {
      const iterator = store.list()[Symbol.asyncIterator]();
      for (;;) {
        const step = await rows.call("list", undefined, () => iterator.next());
        if (step.done) return;
        if (await rows.isOwn(step.value)) yield step.value;
      }
    },

    async findByConsentId(consentId) {
      checkId(consentId, "consentId");
      if (store.findByConsentId) {
        const row = await rows.call("findByConsentId", undefined, () => store.findByConsentId!(consentId));
        return row && (await rows.isOwn(row)) ? row : undefined;
      }
      for await (const row of this.list()) if (row.consentId === consentId) return row;
      return undefined;
    },

    async refresh(id, refreshOptions) {
      checkId(id);
      return refreshNow(ctx, id, refreshOptions?.signal);
    },

    async revoke(id) {
      checkId(id);
      return revoke(ctx, id);
    },

    token(id) {
      checkId(id);
      return (context) => token(ctx, id, context);
    },

    applyNotification(notification, applyOptions) {
      return applyNotification({ findByConsentId: (consentId) => this.findByConsentId(consentId), ...consent }, notification, applyOptions);
    },
  };
}
