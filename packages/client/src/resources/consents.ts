import type { RequestOptions } from "../core/options.js";
import { requestJson, type Pipeline } from "../internal/pipeline.js";
import { checkIds } from "../internal/validation.js";
import type { ConsentGrant } from "../models.js";


/** `client.consents`: consent grant lookup. */
export interface ConsentsResource {
  /**
   * The consent grant, e.g. to stop using an account whose consent was `REVOKED`.
   * Sends no body: it is a GET (the service's body parameters for it belong to an older interface version).
   */
  get(consentId: string, options?: RequestOptions): Promise<ConsentGrant>;
}

export function consentsResource(p: Pipeline): ConsentsResource {
  return {
    async get(consentId, options) {
      checkIds({ consentId });
      const path = { version: p.versions.consents, consentId };
      return await requestJson(
        p,
        options,
        (fetch) => p.consents.GET("/consents/{version}/{consentId}", { params: { path }, fetch }),
        "consent",
      );
    },
  };
}
