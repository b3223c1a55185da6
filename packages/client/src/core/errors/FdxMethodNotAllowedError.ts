import { FdxApiError } from "./FdxApiError.js";

/** HTTP 405: method not allowed (FDX code 1206). */
export class FdxMethodNotAllowedError extends FdxApiError {
  static override readonly kind: string = "FdxMethodNotAllowedError";
}
