import { FdxApiError } from "./FdxApiError.js";

/** HTTP 404: the resource does not exist (FDX code NotFound, 1104, 1108, ...). */
export class FdxNotFoundError extends FdxApiError {
  static override readonly kind: string = "FdxNotFoundError";
}
