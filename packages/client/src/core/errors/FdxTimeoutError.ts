import { FdxConnectionError } from "./FdxConnectionError.js";

/** An attempt got no response headers within `timeoutMs`. */
export class FdxTimeoutError extends FdxConnectionError {
  static override readonly kind: string = "FdxTimeoutError";
}
