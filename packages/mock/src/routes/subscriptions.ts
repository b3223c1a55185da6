import { parseJsonObject } from "../body.js";
import { invalidInput, json } from "../errors.js";
import type { Route, RouteContext } from "../router.js";
import type { AppState } from "../state.js";
import type { Subscription } from "../types.js";
import { isCallbackUrl, isCategory, isEffectiveDate, isEmail, isType } from "../validation.js";

const MAX_ID_LENGTH = 256;
/** Subscriptions one sandbox keeps at most: a shared sandbox must not grow without bound. */
export const MAX_SUBSCRIPTIONS = 1000;
const NOT_FOUND = "subscription id was not found";

/** The subscription named in the path, or the 400 the service answers for it (GET and PATCH too, not only DELETE). */
export function findSubscription(state: AppState, id: string): Subscription | Response {
  if (id.length > MAX_ID_LENGTH) return invalidInput(`subscription id exceeds ${MAX_ID_LENGTH} characters`);
  return state.subscriptions.get(id) ?? invalidInput(NOT_FOUND);
}

/** The debugMessage for the first bad optional field, if any. */
function checkOptionalFields(body: Record<string, unknown>): string | undefined {
  if (body.callbackUrl !== undefined && !isCallbackUrl(body.callbackUrl)) return "Invalid Callback URL";
  if (body.effectiveDate !== undefined && !isEffectiveDate(body.effectiveDate)) return "Invalid Effective Date";
  if (body.callbackEmail !== undefined && !isEmail(body.callbackEmail)) return "Invalid Callback Email";
  return undefined;
}

export function subscriptionRoutes(state: AppState): Route[] {
  function create({ body: raw }: RouteContext): Response {
    const body = parseJsonObject(raw);
    if (!body) return invalidInput("Request body must be a JSON object");
    if (!isCategory(body.category)) return invalidInput("Invalid Category");
    if (!isType(body.type)) return invalidInput("Invalid Type");
    if (!isCallbackUrl(body.callbackUrl)) return invalidInput("Invalid Callback URL");
    const problem = checkOptionalFields(body);
    if (problem) return invalidInput(problem);
    if (state.subscriptions.size >= MAX_SUBSCRIPTIONS) return invalidInput("Subscription limit reached");

    const subscription: Subscription = {
      subscriptionId: globalThis.crypto.randomUUID(),
      category: body.category,
      type: body.type,
      callbackUrl: body.callbackUrl,
    };
    if (body.effectiveDate !== undefined) subscription.effectiveDate = body.effectiveDate as string;
    if (body.callbackEmail !== undefined) subscription.callbackEmail = body.callbackEmail as string;
    state.subscriptions.set(subscription.subscriptionId, subscription);
    return json(200, subscription);
  }

  // Whether the list is wrapped is not shown by the service; the mock wraps it (documented).
  const list = () => json(200, { notificationSubscriptions: [...state.subscriptions.values()] });

  function get({ params }: RouteContext): Response {
    const found = findSubscription(state, params.subscriptionId as string);
    return found instanceof Response ? found : json(200, found);
  }

  function update({ body: raw, params }: RouteContext): Response {
    const found = findSubscription(state, params.subscriptionId as string);
    if (found instanceof Response) return found;
    const body = parseJsonObject(raw);
    if (!body) return invalidInput("Request body must be a JSON object");
    if (body.callbackUrl === undefined && body.effectiveDate === undefined && body.callbackEmail === undefined) {
      return invalidInput("Empty Update Request Body");
    }
    const problem = checkOptionalFields(body);
    if (problem) return invalidInput(problem);

    const updated: Subscription = { ...found };
    if (body.callbackUrl !== undefined) updated.callbackUrl = body.callbackUrl as string;
    if (body.effectiveDate !== undefined) updated.effectiveDate = body.effectiveDate as string;
    if (body.callbackEmail !== undefined) updated.callbackEmail = body.callbackEmail as string;
    state.subscriptions.set(updated.subscriptionId, updated);
    return json(200, updated);
  }

  function remove({ params }: RouteContext): Response {
    const found = findSubscription(state, params.subscriptionId as string);
    if (found instanceof Response) return found;
    state.subscriptions.delete(found.subscriptionId);
    return new Response(null, { status: 204 });
  }

  return [
    { pattern: ["notifications", ":version", "subscriptions"], versions: ["v1"], handlers: { GET: list, POST: create } },
    {
      pattern: ["notifications", ":version", "subscriptions", ":subscriptionId"],
      versions: ["v1"],
      handlers: { GET: get, PATCH: update, DELETE: remove },
    },
  ];
}
