// Full notifications: every member of §2.2, §2.3 and §2.5 set.

export const maintenanceNotification = {
  notificationId: "ntf-6d2c0b7e",
  sentOn: "2025-03-14T09:26:53.589Z",
  subscriber: { name: "Budget App", type: "DATA_RECIPIENT", registry: "FDX", registeredEntityId: "rec-001" },
  publisher: { name: "Example Bank", type: "DATA_PROVIDER", registry: "GLEIF", registeredEntityId: "5493001KJTIIGC8Y1R12" },
  category: "MAINTENANCE",
  type: "PLANNED_OUTAGE",
  notificationPayload: {
    id: "mnt-2025-03-20",
    idType: "MAINTENANCE",
    customFields: [
      { name: "region", value: "us-east" },
      { name: "severity", value: "low" },
    ],
    url: { href: "/notifications/v1/maintenance/mnt-2025-03-20", action: "GET", rel: "self", types: ["application/json"] },
  },
  url: { href: "https://api.example.com/notifications/v1/maintenance/mnt-2025-03-20", action: "GET", rel: "details", types: ["application/json"] },
} as const;

export const consentNotification = {
  notificationId: "ntf-91aa03f4",
  sentOn: "2025-03-15T17:02:11Z",
  subscriber: { name: "Budget App", type: "DATA_RECIPIENT", registry: "FDX", registeredEntityId: "rec-001" },
  publisher: { name: "Example Bank", type: "DATA_PROVIDER", registry: "GLEIF", registeredEntityId: "5493001KJTIIGC8Y1R12" },
  category: "CONSENT",
  type: "CONSENT_REVOKED",
  notificationPayload: {
    id: "cns-7f3e2a",
    idType: "CONSENT",
    customFields: [{ name: "reason", value: "user request" }],
    url: { href: "/consents/v1/cns-7f3e2a", action: "GET", rel: "consent", types: ["application/json"] },
  },
  url: { href: "/consents/v1/cns-7f3e2a", action: "GET", rel: "consent", types: ["application/json"] },
} as const;

/** A notification copy the tests reshape at will, wrong types included, to reach the parser's error paths. */
// biome-ignore lint/suspicious/noExplicitAny: planting values of the wrong type is the point of these tests; this alias is the one place that allows it
export type Reshapable = any;

/** A deep, mutable copy, for tests that change members. */
export function copyOf<T>(value: T): Reshapable {
  return JSON.parse(JSON.stringify(value));
}
