import type { RequestOptions } from "../core/options.js";
import { callBody, type Context } from "../internal/context.js";
import { buildPath } from "../internal/paths.js";
import { checkIds } from "../internal/validation.js";
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
    async get(consentId, options) {
      checkIds({ consentId });
      const url = ctx.baseUrl + buildPath("/consents/{version}/{consentId}", { version: ctx.versions.consents, consentId });
      return await callBody(ctx, { method: "GET", url, options }, "consent");
    },
  };
}
