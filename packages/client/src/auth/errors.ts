import { FdxError } from "../core/error.js";
import { clip } from "../core/redact.js";

/**
 * `FdxAuthError.error`: an OAuth error code (RFC 6749 §4.1.2.1 and §5.2), one
 * of the SDK's own checks, or any other code an IdP sends.
 */
export type FdxAuthErrorCode =
  | "access_denied"
  | "invalid_grant"
  | "invalid_request"
  | "invalid_client"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "server_error"
  | "temporarily_unavailable"
  | "invalid_state"
  | "invalid_callback"
  | "invalid_issuer"
  | "invalid_nonce"
  | "invalid_id_token"
  | "no_refresh_token"
  | "no_access_token"
  | (string & {});

/** `FdxReauthorizationRequiredError.reason`: the IdP's refusal of a refresh, or the connection's state. */
export type FdxReauthorizationReason = "invalid_grant" | "invalid_request" | "reauthorization_required" | "revoked" | "not_found" | (string & {});

/** What an {@link FdxAuthError} is made of. */
export interface FdxAuthErrorInit {
  /** The OAuth error code (`invalid_grant`, `access_denied`, …) or one of the SDK's own checks (`invalid_state`, `invalid_id_token`, …). */
  error: FdxAuthErrorCode;
  errorDescription?: string | undefined;
  /** The HTTP status of the IdP's answer; absent for a callback or a local check. */
  status?: number | undefined;
  cause?: unknown;
}

/**
 * An OAuth error answer (RFC 6749 §5.2), an error callback (`access_denied`),
 * or a check of the SDK that a callback or token answer failed:
 * `invalid_state`, `invalid_callback`, `invalid_issuer`, `invalid_nonce`,
 * `invalid_id_token`. It never holds a code, code verifier, nonce, token or
 * client secret.
 */
export class FdxAuthError extends FdxError {
  static override readonly kind: string = "FdxAuthError";
  /** The OAuth error code, or the SDK check that failed. */
  declare readonly error: FdxAuthErrorCode;
  /** The IdP's `error_description`, or what the SDK's check found. */
  declare readonly errorDescription: string | undefined;
  /** The HTTP status of the IdP's answer; undefined for a callback or a local check. */
  declare readonly status: number | undefined;

  constructor(init: FdxAuthErrorInit) {
    // An IdP's text can be long or hostile: the message is cut (after redaction, which the callers did), the fields are whole.
    // Stryker disable next-line ArrayDeclaration: the callers redacted the text already; this clip only cuts, so its list of secrets is empty
    super(clip(init.errorDescription ? `${init.error}: ${init.errorDescription}` : init.error, []), { cause: init.cause });
    this.error = init.error;
    this.errorDescription = init.errorDescription;
    this.status = init.status;
  }
}

/**
 * A connection can no longer be used: its refresh was refused
 * (`invalid_grant`, `invalid_request`), it was revoked, or it is not stored.
 * Ask the user to connect their bank again.
 */
export class FdxReauthorizationRequiredError extends FdxError {
  static override readonly kind: string = "FdxReauthorizationRequiredError";
  /** The connection's id. */
  declare readonly connectionId: string;
  /** Why: the IdP's error (`invalid_grant`, `invalid_request`), or `reauthorization_required`, `revoked`, `not_found`. */
  declare readonly reason: FdxReauthorizationReason;

  constructor(connectionId: string, reason: FdxReauthorizationReason, options?: { cause?: unknown }) {
    super(`Connection ${JSON.stringify(connectionId)} needs the user's authorization again (${reason})`, options);
    this.connectionId = connectionId;
    this.reason = reason;
  }
}

/**
 * A connection store failed or holds what this manager must not use: the
 * store threw (`store_error`; the cause keeps only the error's name and
 * code, never the row's values), a row of another issuer or client
 * (`foreign_connection`), or a value that does not decrypt (`undecryptable`).
 */
export class FdxConnectionStoreError extends FdxError {
  static override readonly kind: string = "FdxConnectionStoreError";
  /** The connection's id, when the failure concerns one. */
  declare readonly connectionId: string | undefined;
  /** `store_error`, `foreign_connection` or `undecryptable`. */
  declare readonly reason: string;

  constructor(message: string, init: { connectionId: string | undefined; reason: string; cause?: unknown }) {
    super(message, { cause: init.cause });
    this.connectionId = init.connectionId;
    this.reason = init.reason;
  }
}
