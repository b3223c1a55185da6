import { integerMessage, isIntegerAtLeast } from "../internal/checks.js";
import { FdxValidationError, FdxWebhookError } from "../core/error.js";
import type { Notification } from "../schemas/notification.js";
import { readBodyWithLimit, TOO_LARGE } from "./body.js";
import { isJsonContentType } from "./content-type.js";
import { DEFAULT_DEDUPE_TTL_MS, type DedupeStore } from "./dedupe.js";
import { parseNotification } from "./parse.js";

/** Options of {@link createWebhookHandler}. */
export interface WebhookHandlerOptions {
  /**
   * Called with each valid notification (and the request, e.g. to check a secret you put in the callback URL). The
   * handler answers 200 once it settles, or 500 if it throws, so the sender retries: do the work, or queue it durably,
   * before returning.
   */
  onNotification: (notification: Notification, request: Request) => unknown;
  /** Largest body accepted, in bytes; longer ones get 413 without being read further. Default 1 MiB (1 048 576). */
  maxBodyBytes?: number;
  /** Called with what `onNotification` threw, before the 500 (which never carries it), to log it. Errors it throws are ignored. */
  onError?: (error: unknown, request: Request) => void;
  /**
   * Handle each notification once, although delivery is at least once. A notification whose `notificationId` is
   * already claimed is answered 200 without calling `onNotification`; a failed `onNotification` releases the claim, so
   * the retry is handled. Claims hold for the store's `ttlMs` (default 24 h). A notification without a `notificationId`
   * is always handled; a store that throws gets a 500, so the sender retries later. Use {@link memoryDedupe} for one
   * instance, `postgresDedupe` from `@fdxkit/postgres` for several.
   */
  dedupe?: DedupeStore;
}

/** A Fetch-API request handler, as Next.js route handlers, Hono, Bun, Deno and Workers take. */
export type WebhookHandler = (request: Request) => Promise<Response>;

const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/**
 * Creates a Fetch-API handler for webhook deliveries. It answers:
 *
 * - 200 `{"received":true}` after `onNotification` settles;
 * - 405 (with `Allow: POST`) for any method but POST;
 * - 415 for a missing or non-JSON `Content-Type` (`application/json` and `application/*+json`, with any parameters, are JSON);
 * - 413 for a body over `maxBodyBytes`, by `Content-Length` or by counting, and stops reading it;
 * - 400 for a body that is not a notification (`onNotification` is not called);
 * - 500 when `onNotification` throws, so the sender retries;
 * - with `dedupe`, 200 without calling `onNotification` for a notification id already claimed (a redelivery).
 *
 * Response bodies are small JSON (`{"error":"…"}`) and never repeat the request. Only Web APIs are used: in Node's
 * `http` or Express, wrap it with `toNodeListener` from `@fdxkit/client/node`.
 *
 * @example
 * ```ts
 * // app/webhooks/route.ts (Next.js)
 * export const POST = createWebhookHandler({
 *   onNotification: async (n) => {
 *     if (isConsentNotification(n)) await revokeIfNeeded(n.notificationPayload.id);
 *   },
 * });
 * ```
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  if (typeof options !== "object" || options === null) {
    throw new FdxValidationError([{ path: "", message: "options must be an object with onNotification" }]);
  }
  const { onNotification, onError } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (typeof onNotification !== "function") {
    throw new FdxValidationError([{ path: "onNotification", message: "must be a function" }]);
  }
  if (!isIntegerAtLeast(maxBodyBytes, 0)) throw new FdxValidationError([{ path: "maxBodyBytes", message: integerMessage(0) }]);
  if (onError !== undefined && typeof onError !== "function") {
    throw new FdxValidationError([{ path: "onError", message: "must be a function" }]);
  }
  const { dedupe } = options;
  if (dedupe !== undefined && (typeof dedupe?.claim !== "function" || typeof dedupe.release !== "function")) {
    throw new FdxValidationError([{ path: "dedupe", message: "must have claim and release functions" }]);
  }
  const ttlMs = dedupe?.ttlMs ?? DEFAULT_DEDUPE_TTL_MS;
  const report = (error: unknown, request: Request) => {
    try {
      onError?.(error, request);
    } catch {
      // A failing logger must not change the answer.
    }
  };

  return async function handleWebhook(request: Request): Promise<Response> {
    if (request.method !== "POST") {
      return json(405, { error: "method not allowed" }, { allow: "POST" });
    }
    if (!isJsonContentType(request.headers.get("content-type"))) {
      return json(415, { error: "content type must be application/json" });
    }

    let notification: Notification;
    try {
      const body = await readBodyWithLimit(request, maxBodyBytes);
      if (body === TOO_LARGE) return json(413, { error: `body larger than ${maxBodyBytes} bytes` });
      notification = parseNotification(body);
    } catch (error) {
      // The issues stay out of the answer: they are for the receiver's logs, not the sender.
      if (error instanceof FdxWebhookError) return json(400, { error: "invalid notification" });
      // The body stream failed (sender went away) or was already consumed.
      return json(400, { error: "body could not be read" });
    }

    const id = dedupe && typeof notification.notificationId === "string" ? notification.notificationId : undefined;
    if (id !== undefined) {
      let claimed: boolean;
      try {
        claimed = await dedupe!.claim(id, ttlMs);
      } catch (error) {
        report(error, request);
        return json(500, { error: "notification not processed" });
      }
      // Already handled (or being handled): the sender only needs to hear it arrived.
      if (!claimed) return json(200, RECEIVED);
    }

    try {
      await onNotification(notification, request);
    } catch (error) {
      report(error, request);
      if (id !== undefined) {
        try {
          await dedupe!.release(id);
        } catch (releaseError) {
          // The claim now holds until its TTL, so a retry within it is not handled: the receiver must hear of it.
          report(releaseError, request);
        }
      }
      return json(500, { error: "notification not processed" });
    }
    return json(200, RECEIVED);
  };
}

const RECEIVED = JSON.stringify({ received: true });

function json(status: number, body: Record<string, unknown> | string, headers: Record<string, string> = {}): Response {
  const response = new Response(typeof body === "string" ? body : JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
  // Set one by one: Deno's Response constructor is slow with a second init header, and this runs on every delivery.
  response.headers.set("cache-control", "no-store");
  for (const name in headers) response.headers.set(name, headers[name]!);
  return response;
}
