import { FdxResponseError } from "../core/errors/index.js";
import type { RequestOptions } from "../core/options.js";
import { checkResponse, requestData, requestJson, type Pipeline } from "../internal/pipeline.js";
import { isRecord } from "../internal/is-record.js";
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

export function subscriptionsResource(p: Pipeline): SubscriptionsResource {
  const checkInput = subscriptionInputCheck(p.allowInsecureCallbackUrls);
  const checkUpdate = subscriptionUpdateCheck(p.allowInsecureCallbackUrls);
  // The spec allows only v1; a caller naming another version gets the server's 501/1106.
  const version = () => p.versions.notifications as "v1";
  const idPath = (subscriptionId: string) => {
    checkIds({ subscriptionId }, MAX_SUBSCRIPTION_ID);
    return { version: version(), subscriptionId };
  };

  // Every method is async so that input errors reject the returned promise instead of throwing synchronously.
  return {
    async create(input, options) {
      const body = checkInput(input);
      return await requestJson(
        p,
        options,
        (fetch) => p.notifications.POST("/notifications/{version}/subscriptions", { params: { path: { version: version() } }, body, fetch }),
        "subscription",
      );
    },
    async list(options) {
      const { data, status } = await requestData(p, options, (fetch) =>
        p.notifications.GET("/notifications/{version}/subscriptions", { params: { path: { version: version() } }, fetch }),
      );
      return await checkResponse(p, status, toSubscriptionArray(data, status), "subscriptions");
    },
    async get(subscriptionId, options) {
      const path = idPath(subscriptionId);
      return await requestJson(
        p,
        options,
        (fetch) => p.notifications.GET("/notifications/{version}/subscriptions/{subscriptionId}", { params: { path }, fetch }),
        "subscription",
      );
    },
    async update(subscriptionId, patch, options) {
      const path = idPath(subscriptionId);
      const body = checkUpdate(patch);
      return await requestJson(
        p,
        options,
        (fetch) => p.notifications.PATCH("/notifications/{version}/subscriptions/{subscriptionId}", { params: { path }, body, fetch }),
        "subscription",
      );
    },
    async delete(subscriptionId, options) {
      const path = idPath(subscriptionId);
      // 204 has no body and a 200 `{ status }` carries nothing callers need: read either as text and drop it.
      await requestData(p, options, (fetch) =>
        p.notifications.DELETE("/notifications/{version}/subscriptions/{subscriptionId}", { params: { path }, parseAs: "text", fetch }),
      );
    },
    async sendTestEvent(subscriptionId, options) {
      // The id goes in the body; the path serialiser fills only `{version}` and ignores the rest.
      const path = idPath(subscriptionId);
      return await requestJson<Notification>(
        p,
        options,
        (fetch) => p.notifications.POST("/notifications/{version}/test", { params: { path }, body: { id: subscriptionId }, fetch }),
        "notification",
      );
    },
  };
}

/** The list response's shape is not shown by the service: an array, a wrapper object, or one subscription. */
function toSubscriptionArray(data: unknown, status: number): Subscription[] {
  if (data === undefined) throw new FdxResponseError(status, [{ path: "", message: "response body is empty" }]);
  if (Array.isArray(data)) return data as Subscription[];
  if (isRecord(data)) {
    if ("subscriptionId" in data) return [data as unknown as Subscription];
    const wrapped = data.notificationSubscriptions ?? data.subscriptions ?? Object.values(data).find(Array.isArray);
    if (Array.isArray(wrapped)) return wrapped as Subscription[];
    if (Object.keys(data).length === 0) return [];
  }
  throw new FdxResponseError(status, [{ path: "", message: "expected an array of subscriptions" }]);
}
