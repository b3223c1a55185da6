import { FdxApiError, type FdxApiErrorInit } from "./FdxApiError.js";

/** HTTP 429: too many requests (FDX code 1207). Retried automatically. */
export class FdxRateLimitError extends FdxApiError {
  static override readonly kind: string = "FdxRateLimitError";
  /** The server's `Retry-After`, in milliseconds, when it sent one. */
  declare readonly retryAfterMs: number | undefined;

  constructor(init: FdxApiErrorInit & { retryAfterMs?: number | undefined }) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
  }
}
