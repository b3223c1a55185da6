import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod/mini";
import type { components } from "../../src/generated/notifications.js";
import type { notificationSchema, hateoasLinkSchema } from "../../src/schemas/notification.js";
import {
  isConsentNotification,
  isMaintenanceNotification,
  parseNotification,
  type ConsentNotificationEvent,
  type HateoasLink,
  type MaintenanceNotificationEvent,
  type Notification,
  type NotificationPayload,
} from "../../src/webhooks/index.js";
import { consentNotification } from "./fixtures.js";

// These run under `tsc -p tsconfig.json` (the package typecheck): a drift
// between the zod schemas, the public types and the types generated from
// specs/notifications.yaml fails the build, not just this file at run time.

type Generated = components["schemas"];

/** The generated types with every string-literal enum opened to `Known | (string & {})`. */
type Widen<T> = T extends string
  ? string extends T
    ? T
    : T | (string & {})
  : T extends (infer E)[]
    ? Widen<E>[]
    : T extends object
      ? { [K in keyof T]: Widen<T[K]> }
      : T;

/** Drops `[key: string]: unknown` index signatures (zod's looseObject adds them). */
type Known<T> = T extends string | number | boolean | null | undefined
  ? T
  : T extends (infer E)[]
    ? Known<E>[]
    : T extends object
      ? { [K in keyof T as string extends K ? never : number extends K ? never : K]: Known<T[K]> }
      : T;

describe("schema and type parity", () => {
  it("holds the zod output equal to the generated Notification, enums widened", () => {
    expectTypeOf<Known<z.output<typeof notificationSchema>>>().toEqualTypeOf<Widen<Generated["Notification"]>>();
    expectTypeOf<Known<z.output<typeof hateoasLinkSchema>>>().toEqualTypeOf<Widen<Generated["HateoasLink"]>>();
  });

  it("holds the public types equal to the generated ones, enums widened", () => {
    expectTypeOf<Notification>().toEqualTypeOf<Widen<Generated["Notification"]>>();
    expectTypeOf<NotificationPayload>().toEqualTypeOf<Widen<Generated["NotificationPayload"]>>();
    expectTypeOf<HateoasLink>().toEqualTypeOf<Widen<Generated["HateoasLink"]>>();
    expectTypeOf<NonNullable<Notification["subscriber"]>>().toEqualTypeOf<Generated["Party"]>();
    expectTypeOf<NonNullable<NotificationPayload["customFields"]>[number]>().toEqualTypeOf<Generated["CustomField"]>();
  });

  it("accepts every generated value, and the zod output, as a Notification", () => {
    expectTypeOf<Generated["Notification"]>().toExtend<Notification>();
    expectTypeOf<z.output<typeof notificationSchema>>().toExtend<Notification>();
  });

  it("keeps autocompletion for known enum values while accepting others", () => {
    expectTypeOf<"CONSENT">().toExtend<Notification["category"]>();
    expectTypeOf<"SOMETHING_NEW">().toExtend<Notification["category"]>();
    expectTypeOf<Notification["category"]>().toExtend<string>();
    expectTypeOf<number>().not.toExtend<Notification["category"]>();
  });
});

describe("parseNotification and the guards", () => {
  it("returns a Notification", () => {
    expectTypeOf(parseNotification).returns.toEqualTypeOf<Notification>();
    expectTypeOf(parseNotification).parameter(0).toBeUnknown();
  });

  it("narrow to a payload with a string id and the matching idType", () => {
    const n = parseNotification(JSON.stringify(consentNotification));
    expectTypeOf(n.notificationPayload.id).toEqualTypeOf<string | undefined>();
    if (isMaintenanceNotification(n)) {
      expectTypeOf(n).toExtend<MaintenanceNotificationEvent>();
      expectTypeOf(n.notificationPayload.id).toEqualTypeOf<string>();
      expectTypeOf(n.notificationPayload.idType).toEqualTypeOf<"MAINTENANCE">();
    }
    if (isConsentNotification(n)) {
      expectTypeOf(n).toExtend<ConsentNotificationEvent>();
      expectTypeOf(n.notificationPayload.id).toEqualTypeOf<string>();
      expectTypeOf(n.notificationPayload.idType).toEqualTypeOf<"CONSENT">();
      // The narrowed id is what `client.consents.get(consentId: string)` takes.
      expectTypeOf(n.notificationPayload.id).toExtend<Parameters<(consentId: string) => void>[0]>();
    }
  });
});
