import { FdxError } from "./FdxError.js";

/** No response arrived: connection refused or reset, DNS failure, CORS refusal. `cause` holds the platform error. */
export class FdxConnectionError extends FdxError {
  static override readonly kind: string = "FdxConnectionError";
  declare readonly cause: unknown;
  /** The `x-fapi-interaction-id` the call sent, if any. */
  declare readonly interactionId: string | undefined;

  constructor(message: string, options?: { cause?: unknown; interactionId?: string | undefined }) {
    super(message, options);
    this.interactionId = options?.interactionId;
  }
}
