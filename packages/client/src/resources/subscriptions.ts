import { FdxResponseError } from "../core/error.js";
import type { RequestOptions } from "../core/options.js";
import { callBody, checkResponse, type Context } from "../internal/context.js";
import { isRecord } from "../internal/is-record.js";
import { buildPath } from "../internal/paths.js";
import { request } from "../internal/request.js";
import type { Call } from "../internal/types.js";
import { checkIds, subscriptionInputCheck, subscriptionUpdateCheck } from "../internal/validation.js";
import type { Notification, Subscription, SubscriptionInput, SubscriptionUpdate } from "../models.js";

const MAX_SUBSCRIPTION_ID = 256;

/** `client.subscriptions`: notification subscriptions (`/notifications/{v}/subscriptions`). */
export interface SubscriptionsResource {
  /** Subscribes `callbackUrl` to a category and type of notification. */
  create(input: SubscriptionInput, options?: RequestOptions): Promise<Subscription>;
  /** All subscriptions, as an array whatever shape the server wraps them in (array, wrapper object, one subscription). */
  list(options?: RequestOptions): Promise<Subscription[]>;
  /** One subscription by id. */
  get(subscriptionId: string, options?: RequestOptions): Promise<Subscription>;
  /** Changes `callbackUrl`, `effectiveDate` and/or `callbackEmail` (at least one). */
  update(subscriptionId: string, patch: SubscriptionUpdate, options?: RequestOptions): Promise<Subscription>;
  /** Resolves once deleted (the service answers 204, or 200 with `{ status }`). */
  delete(subscriptionId: string, options?: RequestOptions): Promise<void>;
  /** Sandbox only: posts a sample notification to the subscription's callback URL and returns it. */
  sendTestEvent(subscriptionId: string, options?: RequestOptions): Promise<Notification>;
}

const json = (value: unknown) => ({ type: "application/json", text: JSON.stringify(value) });

export function subscriptionsResource(ctx: Context): SubscriptionsResource {
  const checkInput = subscriptionInputCheck(ctx.allowInsecureCallbackUrls);
  const checkUpdate = subscriptionUpdateCheck(ctx.allowInsecureCallbackUrls);
  const version = () => ctx.versions.notifications;
  const collection = () => ctx.baseUrl + buildPath("/notifications/{version}/subscriptions", { version: version() });
  const one = (subscriptionId: string) => {
    checkIds({ subscriptionId }, MAX_SUBSCRIPTION_ID);
    return ctx.baseUrl + buildPath("/notifications/{version}/subscriptions/{subscriptionId}", { version: version(), subscriptionId });
  };

  // Every method is async so that input errors reject the returned promise instead of throwing synchronously.
  return {
    async create(input, options) {
      const body = json(checkInput(input));
      return await callBody(ctx, { method: "POST", url: collection(), body, options }, "subscription");
    },
    async list(options) {
      const { data, status, interactionId } = await request(ctx, { method: "GET", url: collection(), options }, "json");
      const subscriptions = toSubscriptionArray(data, status, interactionId);
      if (ctx.validateResponses) await checkResponse(subscriptions, "subscriptions", status, interactionId);
      return subscriptions;
    },
    async get(subscriptionId, options) {
      return await callBody(ctx, { method: "GET", url: one(subscriptionId), options }, "subscription");
    },
    async update(subscriptionId, patch, options) {
      const url = one(subscriptionId);
      const body = json(checkUpdate(patch));
      return await callBody(ctx, { method: "PATCH", url, body, options }, "subscription");
    },
    async delete(subscriptionId, options) {
      // 204 has no body and a 200 `{ status }` carries nothing callers need: read as text and dropped.
      const call: Call = { method: "DELETE", url: one(subscriptionId), options };
      await request(ctx, call, "text");
    },
    async sendTestEvent(subscriptionId, options) {
      checkIds({ subscriptionId }, MAX_SUBSCRIPTION_ID);
      const url = ctx.baseUrl + buildPath("/notifications/{version}/test", { version: version() });
      return await callBody(ctx, { method: "POST", url, body: json({ id: subscriptionId }), options }, "notification");
    },
  };
}

/** The list response's shape is not shown by the service: an array, a wrapper object, or one subscription. */
function toSubscriptionArray(data: unknown, status: number, interactionId: string | undefined): Subscription[] {
  const fail = (message: string) => new FdxResponseError(status, [{ path: "", message }], { interactionId });
  if (data === undefined) throw fail("response body is empty");
  if (Array.isArray(data)) return data as Subscription[];
  if (isRecord(data)) {
    if ("subscriptionId" in data) return [data as Subscription];
    const wrapped = data.notificationSubscriptions ?? data.subscriptions ?? Object.values(data).find(Array.isArray);
    if (Array.isArray(wrapped)) return wrapped as Subscription[];
    if (Object.keys(data).length === 0) return [];
  }
  throw fail("expected an array of subscriptions");
}
