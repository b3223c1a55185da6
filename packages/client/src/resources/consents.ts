import type { RequestOptions } from "../core/options.js";
import { getById, type Context } from "../internal/context.js";
import type { ConsentGrant } from "../models.js";

/** `client.consents`: consent grant lookup. */
export interface ConsentsResource {
  /**
   * The consent grant, e.g. to stop using an account whose consent was `REVOKED`. Sends no body: it is a GET (the
   * service's body parameters for it belong to an older interface version).
   */
  get(consentId: string, options?: RequestOptions): Promise<ConsentGrant>;
}

export function consentsResource(ctx: Context): ConsentsResource {
  return {
    get: (consentId, options) => getById(ctx, "/consents/{version}/{consentId}", "consents", { consentId }, "consent", options),
  };
}
