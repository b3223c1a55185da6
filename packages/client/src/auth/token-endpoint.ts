// What every call to an OAuth token (or revocation) endpoint shares: client
// authentication (RFC 6749 §2.3.1), the form-encoded POST with its small
// body cap, and reading the OAuth error answer (RFC 6749 §5.2). Both the
// client-credentials token function and the authorization-code client use it.
import { FdxApiError } from "../core/error.js";
import { secretForms } from "../core/redact.js";
import type { FetchLike, RequestOptions } from "../core/options.js";
import { isRecord } from "../internal/is-record.js";
import { request } from "../internal/request.js";
import type { Transport } from "../internal/types.js";
import { FdxAuthError } from "./errors.js";

/** Token answers and discovery documents are small; anything bigger is not one. */
export const MAX_TOKEN_BODY_BYTES = 64 * 1024;

/** A client's HTTP Basic credentials and every form of its secret that must never reach an error. */
export interface ClientAuth {
  basic: string;
  secrets: string[];
}

/** Basic credentials per RFC 6749 §2.3.1: form-urlencode id and secret, then base64 "id:secret". */
export function clientAuth(clientId: string, clientSecret: string): ClientAuth {
  const encodedSecret = formEncode(clientSecret);
  const basic = btoa(`${formEncode(clientId)}:${encodedSecret}`);
  return { basic, secrets: [...secretForms(clientSecret), ...secretForms(encodedSecret), basic] };
}

function formEncode(value: string): string {
  return new URLSearchParams([["", value]]).toString().slice(1);
}

/** The request path for an IdP: no bearer token, hooks, retries or interaction ids, and a small body cap. */
export function tokenTransport(fetch: FetchLike | typeof globalThis.fetch | undefined, timeoutMs: number): Transport {
  return {
    token: undefined,
    fetch: fetch as FetchLike | undefined,
    timeoutMs,
    maxRetries: 0,
    maxResponseBytes: MAX_TOKEN_BODY_BYTES,
    interactionIds: false,
    hooks: undefined,
  };
}

/** One form POST to a token or revocation endpoint. */
export interface FormPost {
  url: string;
  form: string;
  /** The whole `Authorization` header value, or "" for none. */
  authorization: string;
  /** Every form of every secret of the call. */
  secrets: readonly string[];
  options: Pick<RequestOptions, "timeoutMs" | "signal"> | undefined;
}

/**
 * POSTs a form; a failed answer rejects with the `FdxApiError` of its status
 * whose `code` and `message` are the OAuth `error` and `error_description`
 * when the body is an OAuth error.
 */
export async function postForm(transport: Transport, post: FormPost, mode: "json" | "text") {
  try {
    return await request(
      transport,
      {
        method: "POST",
        url: post.url,
        body: { type: "application/x-www-form-urlencoded", text: post.form },
        authorization: post.authorization,
        secrets: post.secrets,
        options: post.options,
      },
      mode,
    );
  } catch (error) {
    throw oauthApiError(error);
  }
}

/** The OAuth `error` and `error_description` of an error answer, when it is one. */
function oauthFields(error: FdxApiError): { error: string; description: string | undefined } | undefined {
  const { body } = error;
  if (!isRecord(body) || typeof body.error !== "string") return undefined;
  return { error: body.error, description: typeof body.error_description === "string" ? body.error_description : undefined };
}

// The request path reads FDX bodies (`code`, `message`); an OAuth body names
// the same things `error` and `error_description`. An FDX field the body
// also carries wins, as it would for any other call.
function oauthApiError(error: unknown): unknown {
  // Stryker disable next-line ConditionalExpression: only FdxApiError carries a body, so anything else has no OAuth fields and is returned as it was below
  if (!(error instanceof FdxApiError)) return error;
  const oauth = oauthFields(error);
  if (!oauth) return error;
  const body = error.body as Record<string, unknown>;
  const hasMessage = typeof body.message === "string" && body.message !== "";
  // The body was redacted by the request path already, so its fields are too.
  const message = hasMessage ? error.message : oauth.description || oauth.error || error.message;
  const code = body.code ?? oauth.error;
  // The same class with the same fields (a 429's `retryAfterMs` included): only code and message change.
  const Class = error.constructor as typeof FdxApiError;
  return new Class({ ...error, message, code: typeof code === "string" ? code : typeof code === "number" ? String(code) : undefined });
}

/** An OAuth error answer as `FdxAuthError`; anything else as it was. */
export function toAuthError(error: unknown): unknown {
  const oauth = error instanceof FdxApiError ? oauthFields(error) : undefined;
  if (!oauth) return error;
  return new FdxAuthError({ error: oauth.error, errorDescription: oauth.description, status: (error as FdxApiError).status });
}

/** A token answer's fields: JSON (RFC 6749 §5.1), or form-encoded as some OAuth servers answer. */
export function parseTokenAnswer(text: string, contentType: string): Record<string, unknown> | undefined {
  if (/x-www-form-urlencoded/i.test(contentType)) return Object.fromEntries(new URLSearchParams(text));
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    // Form fields sent under another media type (text/plain) are still a form.
    return /^[\w.~%+-]+=/.test(text) ? Object.fromEntries(new URLSearchParams(text)) : undefined;
  }
}
