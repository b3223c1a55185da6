import { FdxApiError } from "./FdxApiError.js";

/** HTTP 501: version not supported or not implemented (FDX code 1106). */
export class FdxNotImplementedError extends FdxApiError {
  static override readonly kind: string = "FdxNotImplementedError";
}
