import { FdxError } from "./FdxError.js";

/** No response arrived: connection refused or reset, DNS failure, CORS refusal. `cause` holds the platform error. */
export class FdxConnectionError extends FdxError {
  static override readonly kind: string = "FdxConnectionError";
  declare readonly cause: unknown;
}
