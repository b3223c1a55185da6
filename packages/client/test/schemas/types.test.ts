// zod schemas must not drift from the spec: each schema's inferred type is held
// equal to the type generated from specs/ (enums opened, as the SDK accepts
// values a newer server adds). Checked by `tsc`; the runtime part is trivial.
import { describe, expectTypeOf, it } from "vitest";
import type * as z from "zod/mini";
import type { components as C } from "../../src/generated/consents.js";
import type { components as N } from "../../src/generated/notifications.js";
import type { components as S } from "../../src/generated/statements.js";
import type { OpenEnums } from "../../src/internal/open-enum.js";
import type { subscriptionInputCheck, subscriptionUpdateCheck } from "../../src/internal/validation.js";
import type { NOTIFICATION_CATEGORIES, NOTIFICATION_TYPES } from "../../src/schemas/enums.js";
import type { ConsentGrant, MaintenanceNotification, Notification, Statement, StatementList, Subscription } from "../../src/index.js";
import type { consentGrantSchema } from "../../src/schemas/consent.js";
import type { maintenanceNotificationSchema } from "../../src/schemas/maintenance.js";
import type { notificationSchema } from "../../src/schemas/notification.js";
import type { statementListSchema, statementSchema } from "../../src/schemas/statement.js";
import type { subscriptionSchema } from "../../src/schemas/subscription.js";

/** Drops the `[key: string]: unknown` that `looseObject` adds, recursively: what is left is the declared shape. */
type Declared<T> = T extends string | number | boolean | bigint | symbol | null | undefined
  ? T // before `object`: an open enum's `string & {}` would otherwise count as one
  : T extends readonly (infer U)[]
    ? Declared<U>[]
    : T extends object
      ? { [K in keyof T as string extends K ? never : K]: Declared<T[K]> }
      : T;

type Out<Schema extends z.ZodMiniType> = Declared<z.output<Schema>>;

describe("response schemas equal the generated types (enums opened)", () => {
  it("subscription", () => {
    expectTypeOf<Out<typeof subscriptionSchema>>().toEqualTypeOf<OpenEnums<N["schemas"]["Subscription"]>>();
  });
  it("maintenance notification", () => {
    expectTypeOf<Out<typeof maintenanceNotificationSchema>>().toEqualTypeOf<OpenEnums<N["schemas"]["MaintenanceNotification"]>>();
  });
  it("consent grant", () => {
    expectTypeOf<Out<typeof consentGrantSchema>>().toEqualTypeOf<OpenEnums<C["schemas"]["ConsentGrant"]>>();
  });
  it("statement and statement list", () => {
    expectTypeOf<Out<typeof statementSchema>>().toEqualTypeOf<OpenEnums<S["schemas"]["Statement"]>>();
    expectTypeOf<Out<typeof statementListSchema>>().toEqualTypeOf<OpenEnums<S["schemas"]["StatementList"]>>();
  });
  it("notification (the webhook schema, used for sendTestEvent)", () => {
    expectTypeOf<Out<typeof notificationSchema>>().toEqualTypeOf<OpenEnums<N["schemas"]["Notification"]>>();
  });
});

describe("public response types are the opened generated types", () => {
  it("each one", () => {
    expectTypeOf<Subscription>().toEqualTypeOf<OpenEnums<N["schemas"]["Subscription"]>>();
    expectTypeOf<MaintenanceNotification>().toEqualTypeOf<OpenEnums<N["schemas"]["MaintenanceNotification"]>>();
    expectTypeOf<ConsentGrant>().toEqualTypeOf<OpenEnums<C["schemas"]["ConsentGrant"]>>();
    expectTypeOf<Statement>().toEqualTypeOf<OpenEnums<S["schemas"]["Statement"]>>();
    expectTypeOf<StatementList>().toEqualTypeOf<OpenEnums<S["schemas"]["StatementList"]>>();
    expectTypeOf<Notification>().toEqualTypeOf<OpenEnums<N["schemas"]["Notification"]>>();
  });

  it("an opened enum still offers the known values and takes others", () => {
    expectTypeOf<"REVOKED">().toExtend<NonNullable<ConsentGrant["status"]>>();
    expectTypeOf<"SUSPENDED">().toExtend<NonNullable<ConsentGrant["status"]>>();
    expectTypeOf<Subscription["category"]>().not.toEqualTypeOf<string>();
  });
});

describe("input checks match the generated request types (closed enums)", () => {
  it("create and update return the generated request bodies", () => {
    expectTypeOf<ReturnType<ReturnType<typeof subscriptionInputCheck>>>().toEqualTypeOf<N["schemas"]["SubscriptionRequest"]>();
    expectTypeOf<ReturnType<ReturnType<typeof subscriptionUpdateCheck>>>().toEqualTypeOf<N["schemas"]["SubscriptionUpdate"]>();
  });
  it("the enum values checked are exactly the spec's", () => {
    expectTypeOf<(typeof NOTIFICATION_CATEGORIES)[number]>().toEqualTypeOf<N["schemas"]["NotificationCategory"]>();
    expectTypeOf<(typeof NOTIFICATION_TYPES)[number]>().toEqualTypeOf<N["schemas"]["NotificationType"]>();
  });
});
