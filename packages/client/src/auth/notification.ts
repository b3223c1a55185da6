// What a consent webhook does to the connection holding the consent. Webhooks
// carry no signature and consent ids are no secret (every id token names
// its grant), so a notification is only a hint: the consent is read through
// the API with the service client, and its status decides.
import { FdxValidationError } from "../core/error.js";
import { isRecord } from "../internal/is-record.js";
import { FdxReauthorizationRequiredError } from "./errors.js";
import type { Connection } from "./types.js";

/** What {@link Connections.applyNotification} needs of a client: the consent lookup (`createClient(...)` has it). */
export interface ConsentReader {
  consents: {
    /** Reads a consent grant (`client.consents.get`). */
    get(consentId: string): Promise<{ status?: string | undefined }>;
  };
}

/** Options of {@link Connections.applyNotification}. */
export interface ApplyNotificationOptions {
  /** A client with the service token (not a user's): the consent is read with it before anything changes. */
  client: ConsentReader;
}

/** What {@link Connections.applyNotification} did. */
export interface NotificationResult {
  /** `"none"` when nothing changed: no connection holds the consent, it was already so, or the notice was stale or forged. */
  action: "revoked" | "reauthorization_required" | "refreshed" | "none";
  /** The connection as it now is, when one holds the consent. */
  connection?: Connection | undefined;
}

/** The connection manager's part in applying a notification. */
export interface NotificationTarget {
  findByConsentId(consentId: string): Promise<Connection | undefined>;
  /** Stores `status` (tokens erased) unless the row no longer holds the consent or is already ended; undefined when nothing was written. */
  end(id: string, consentId: string, status: "revoked" | "reauthorization_required"): Promise<Connection | undefined>;
  /** Refreshes now, at most once per connection per throttle window; undefined when held back. */
  refreshThrottled(id: string): Promise<Connection | undefined>;
}

/** The consent id of a consent notification, or undefined for any other notification. */
function consentIdOf(notification: unknown): string | undefined {
  if (!isRecord(notification))
    throw new FdxValidationError([{ path: "notification", message: "must be a notification object (from parseNotification or the webhook handler)" }]);
  const payload = notification.notificationPayload;
  if (notification.category !== "CONSENT" || !isRecord(payload)) return undefined;
  if (payload.idType !== undefined && payload.idType !== "CONSENT") return undefined;
  return typeof payload.id === "string" && payload.id !== "" ? payload.id : undefined;
}

/**
 * Applies a consent notification: finds the connection holding the consent
 * (none → nothing, no API call), reads the consent, and follows its status —
 * `REVOKED` ends the connection as revoked (no IdP call: the provider ended
 * the grant), `EXPIRED` as needing reauthorization, and `ACTIVE` with
 * `CONSENT_UPDATED` refreshes it so its accounts follow the grant. A failure
 * to read the consent throws, so the delivery is not acknowledged and comes
 * again.
 */
export async function applyNotification(target: NotificationTarget, notification: unknown, options: ApplyNotificationOptions): Promise<NotificationResult> {
  if (typeof options?.client?.consents?.get !== "function") {
    throw new FdxValidationError([{ path: "client", message: "must be a client with the service token (createClient)" }]);
  }
  const consentId = consentIdOf(notification);
  if (consentId === undefined) return { action: "none" };
  const connection = await target.findByConsentId(consentId);
  if (!connection) return { action: "none" };
  const consent = await options.client.consents.get(consentId);
  const status = consent?.status;
  if (status === "REVOKED" || status === "EXPIRED") {
    const ended = await target.end(connection.id, consentId, status === "REVOKED" ? "revoked" : "reauthorization_required");
    if (ended) return { action: ended.status as "revoked" | "reauthorization_required", connection: ended };
    return { action: "none", connection: await target.findByConsentId(consentId) };
  }
  // An active consent: a revocation notice is forged or stale; an update may have changed the granted accounts.
  const type = (notification as { type?: unknown }).type;
  if (status === "ACTIVE" && type === "CONSENT_UPDATED" && connection.status === "active") {
    try {
      const refreshed = await target.refreshThrottled(connection.id);
      if (refreshed) return { action: "refreshed", connection: refreshed };
    } catch (error) {
      // The IdP refused the refresh token even though the consent is active: the user connects again.
      if (!(error instanceof FdxReauthorizationRequiredError)) throw error;
      const now = await target.findByConsentId(consentId);
      if (now?.status === "reauthorization_required") return { action: "reauthorization_required", connection: now };
      throw error;
    }
  }
  return { action: "none", connection };
}
