import * as z from "zod/mini";
import { FdxWebhookError } from "../core/error.js";
import { notificationSchema, type Notification } from "../schemas/notification.js";
import { toIssues } from "../schemas/issues.js";
import { readJson } from "./json.js";
import { asNotification } from "./shape.js";

/**
 * Validates a webhook body and returns it as a typed {@link Notification}.
 *
 * `input` is the raw body (`string`, `Uint8Array`/`Buffer`, `ArrayBuffer`, or
 * another `ArrayBufferView`) as UTF-8 JSON, or a value a framework already
 * parsed from JSON. `category`, `type` and
 * `notificationPayload` must be present, and every known member must have the
 * right JSON type; enum values this SDK does not know yet are accepted as
 * strings, and unknown members are kept.
 *
 * The result is a fresh copy with ordinary prototypes and without `__proto__`,
 * `constructor` and `prototype` keys (at any depth), so neither parsing nor a
 * later merge of the result can reach `Object.prototype`.
 *
 * Webhooks are unsigned: treat a notification as a hint and read the details
 * through the API (`client.maintenance.get`, `client.consents.get`).
 *
 * @throws {FdxWebhookError} when the body is not UTF-8 JSON, not an object, or
 * not a notification; `issues` names each problem (`notificationPayload.id: must be a string`).
 */
export function parseNotification(input: unknown): Notification {
  const json = readJson(input);
  if (!json.ok) throw new FdxWebhookError([json.issue]);
  // The common case, a valid notification, without zod's cost; zod judges the rest and names the issues.
  const notification = asNotification(json.value);
  if (notification) return notification;
  const result = z.safeParse(notificationSchema, json.value);
  if (!result.success) throw new FdxWebhookError(toIssues(result.error.issues));
  return result.data;
}
