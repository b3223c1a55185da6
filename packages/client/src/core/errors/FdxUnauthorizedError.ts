import { FdxApiError } from "./FdxApiError.js";

/** HTTP 401: missing or unauthorized token (FDX code 1205). */
export class FdxUnauthorizedError extends FdxApiError {
  static override readonly kind: string = "FdxUnauthorizedError";
}
