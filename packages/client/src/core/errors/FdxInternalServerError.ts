import { FdxApiError } from "./FdxApiError.js";

/** HTTP 500: the server could not process the request (FDX code 500). */
export class FdxInternalServerError extends FdxApiError {
  static override readonly kind: string = "FdxInternalServerError";
}
