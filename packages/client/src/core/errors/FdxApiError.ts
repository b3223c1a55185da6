import { FdxError } from "./FdxError.js";

/** What an {@link FdxApiError} is built from: the failed request and the service's error response. */
export interface FdxApiErrorInit {
  status: number;
  statusText?: string;
  code: string | undefined;
  message: string;
  debugMessage: string | undefined;
  body: unknown;
  headers: Record<string, string>;
  method: string;
  url: string;
  /** The response's `x-fapi-interaction-id`, else the id sent. */
  interactionId?: string | undefined;
}

/**
 * The server answered with a non-2xx status. Subclasses by status let callers
 * catch one case (`FdxRateLimitError`); `code` carries the FDX error code as a
 * string (`"1205"`, `"503"`, `"NotFound"`) whatever type the body used.
 */
export class FdxApiError extends FdxError {
  static override readonly kind: string = "FdxApiError";
  // Fields of the error classes are `declare`d: each constructor sets them (in the order toJSON shows),
  // so a class field definition would only repeat every name in every bundle.
  declare readonly status: number;
  /** FDX error code, integer codes normalised to strings (`401` → `"401"`). */
  declare readonly code: string | undefined;
  /** Developer diagnostic from the server. Never branch on it: its text may change at any time. */
  declare readonly debugMessage: string | undefined;
  /** Parsed JSON body, or the body text when it was not JSON. */
  declare readonly body: unknown;
  declare readonly headers: Record<string, string>;
  declare readonly method: string;
  /** Absolute URL of the request. */
  declare readonly url: string;
  /** The response's `x-fapi-interaction-id` header, else the id the call sent: quote it to the provider's support. */
  declare readonly interactionId: string | undefined;

  constructor(init: FdxApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.debugMessage = init.debugMessage;
    this.body = init.body;
    this.headers = init.headers;
    this.method = init.method;
    this.url = init.url;
    this.interactionId = init.interactionId;
  }
}
