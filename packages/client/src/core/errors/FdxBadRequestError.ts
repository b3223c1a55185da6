import { FdxApiError } from "./FdxApiError.js";

/** HTTP 400: the server rejected the input (FDX code 401 "Invalid Input"). */
export class FdxBadRequestError extends FdxApiError {
  static override readonly kind: string = "FdxBadRequestError";
}
