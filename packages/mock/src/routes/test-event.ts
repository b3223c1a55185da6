import { parseJsonObject } from "../body.js";
import { invalidInput, json } from "../errors.js";
import type { Route, RouteContext } from "../router.js";
import { SEED_DATA } from "../seed.js";
import type { AppState } from "../state.js";
import type { ConsentGrant, Notification, NotificationCategory, NotificationType, Subscription } from "../types.js";
import { findSubscription } from "./subscriptions.js";

const PUBLISHER = { name: "fdxkit Sandbox Bank", type: "DATA_PROVIDER", registry: "FDX", registeredEntityId: "PRV-0001" };
const SUBSCRIBER = { name: "fdxkit Demo Budgeting App", type: "DATA_RECIPIENT", registry: "FDX", registeredEntityId: "REC-0042" };

type Payload = Notification["notificationPayload"];

/**
 * The payload points at seeded data the receiver can read back through the
 * API: a maintenance notice of the same type, or a consent whose status fits
 * the event (revoked for CONSENT_REVOKED, active otherwise).
 */
function payloadFor(state: AppState, category: NotificationCategory, type: NotificationType): Payload {
  if (category === "CONSENT") {
    const wanted = type === "CONSENT_REVOKED" ? "REVOKED" : "ACTIVE";
    return consentPayload(state, SEED_DATA.consents.find((c) => c.status === wanted) ?? (SEED_DATA.consents[0] as ConsentGrant));
  }
  const notice = SEED_DATA.maintenance.find((m) => m.type === type) ?? SEED_DATA.maintenance[0];
  const id = notice?.id ?? "";
  return {
    id,
    idType: "MAINTENANCE",
    customFields: [
      { name: "title", value: notice?.title ?? "" },
      { name: "startTime", value: notice?.startTime ?? "" },
    ],
    url: { href: `${state.baseUrl}/notifications/v1/maintenance/${encodeURIComponent(id)}`, action: "GET", rel: "related" },
  };
}

function consentPayload(state: AppState, consent: ConsentGrant): Payload {
  const id = consent.id ?? "";
  return {
    id,
    idType: "CONSENT",
    customFields: [{ name: "status", value: consent.status ?? "" }],
    url: { href: `${state.baseUrl}/consents/v1/${encodeURIComponent(id)}`, action: "GET", rel: "related" },
  };
}

function notification(category: NotificationCategory, type: NotificationType, notificationPayload: Payload): Notification {
  return {
    notificationId: `ntf-${globalThis.crypto.randomUUID()}`,
    sentOn: new Date().toISOString(),
    subscriber: SUBSCRIBER,
    publisher: PUBLISHER,
    category,
    type,
    notificationPayload,
    url: notificationPayload.url,
  };
}

export function buildNotification(state: AppState, subscription: Pick<Subscription, "category" | "type">): Notification {
  return notification(subscription.category, subscription.type, payloadFor(state, subscription.category, subscription.type));
}

/** A consent event about one consent grant (the identity provider's revocations). */
export function consentNotification(state: AppState, consent: ConsentGrant, type: NotificationType): Notification {
  return notification("CONSENT", type, consentPayload(state, consent));
}

export function testEventRoutes(state: AppState): Route[] {
  // Answers at once and delivers in the background: the 200 says the event
  // was accepted, `deliveries` / `idle()` tell how delivery went.
  function send({ body: raw }: RouteContext): Response {
    const body = parseJsonObject(raw);
    if (!body || typeof body.id !== "string" || body.id === "") return invalidInput('Body must be {"id": "<subscriptionId>"}');
    const found = findSubscription(state, body.id);
    if (found instanceof Response) return found;
    const notification = buildNotification(state, found);
    state.deliveries.enqueue(found.subscriptionId, found.callbackUrl, notification);
    return json(200, notification);
  }

  // A GET cannot carry a body (removed in 1.1.0), so the GET form takes the
  // subscription as `?id=`; without it, it answers a maintenance sample. It delivers nothing.
  function preview({ url }: RouteContext): Response {
    const id = url.searchParams.get("id");
    let source: Pick<Subscription, "category" | "type"> = { category: "MAINTENANCE", type: "PLANNED_OUTAGE" };
    if (id !== null) {
      const found = findSubscription(state, id);
      if (found instanceof Response) return found;
      source = found;
    }
    const { category, type, notificationPayload, url: link } = buildNotification(state, source);
    return json(200, { category, type, notificationPayload, url: link });
  }

  return [{ pattern: ["notifications", ":version", "test"], versions: ["v1"], handlers: { GET: preview, POST: send } }];
}
