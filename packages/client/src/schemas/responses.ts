import * as z from "zod/mini";
import type { FdxIssue } from "../core/error.js";
import { toIssues } from "./issues.js";
import { consentGrantSchema } from "./consent.js";
import { maintenanceNotificationSchema } from "./maintenance.js";
import { notificationSchema } from "./notification.js";
import { statementListSchema } from "./statement.js";
import { subscriptionArraySchema, subscriptionSchema } from "./subscription.js";

// Loaded with a dynamic import() only by clients created with `validateResponses: true`: the schemas cost others nothing.

const schemas = {
  subscription: subscriptionSchema,
  subscriptions: subscriptionArraySchema,
  notification: notificationSchema,
  maintenance: maintenanceNotificationSchema,
  consent: consentGrantSchema,
  statementList: statementListSchema,
} satisfies Record<string, z.ZodMiniType>;

/** Names of the response bodies `validateResponses` checks. */
export type ResponseKind = keyof typeof schemas;

/** The issues with a response body, or an empty list when it matches its schema. */
export function responseIssues(kind: ResponseKind, value: unknown): FdxIssue[] {
  const result = z.safeParse(schemas[kind] as z.ZodMiniType, value);
  return result.success ? [] : toIssues(result.error.issues);
}
