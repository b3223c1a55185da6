import { describe, expect, it } from "vitest";
import { isConsentNotification, isMaintenanceNotification, parseNotification } from "../../src/webhooks/index.js";
import { consentNotification, copyOf, maintenanceNotification, type Reshapable } from "./fixtures.js";

describe("type guards", () => {
  it("recognise a maintenance notification by its payload idType", () => {
    const n = parseNotification(maintenanceNotification);
    expect(isMaintenanceNotification(n)).toBe(true);
    expect(isConsentNotification(n)).toBe(false);
  });

  it("recognise a consent notification by its payload idType", () => {
    const n = parseNotification(consentNotification);
    expect(isConsentNotification(n)).toBe(true);
    expect(isMaintenanceNotification(n)).toBe(false);
  });

  it("follow idType, not category: idType says what the payload id is", () => {
    const n = copyOf(maintenanceNotification);
    n.category = "CONSENT";
    n.type = "CONSENT_UPDATED";
    const parsed = parseNotification(n);
    expect(isMaintenanceNotification(parsed)).toBe(true);
    expect(isConsentNotification(parsed)).toBe(false);
  });

  it.each([
    ["no idType", (n: Reshapable) => delete n.notificationPayload.idType],
    ["an idType this SDK does not know", (n: Reshapable) => (n.notificationPayload.idType = "ACCOUNT")],
    ["idType in another case", (n: Reshapable) => (n.notificationPayload.idType = "consent")],
    ["no payload id", (n: Reshapable) => delete n.notificationPayload.id],
    ["an empty payload id", (n: Reshapable) => (n.notificationPayload.id = "")],
  ])("match neither with %s", (_, change) => {
    const n = copyOf(consentNotification);
    change(n);
    const parsed = parseNotification(n);
    expect(isConsentNotification(parsed)).toBe(false);
    expect(isMaintenanceNotification(parsed)).toBe(false);
  });
});
