import { FdxError } from "./FdxError.js";

/** The caller's `AbortSignal` fired. `name` is `"AbortError"`, as platform aborts are. */
export class FdxAbortError extends FdxError {
  static override readonly kind: string = "FdxAbortError";

  constructor(message = "The request was aborted", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AbortError";
  }
}
