// What to do with a notification. Webhooks are unsigned, so the body is only a
// hint: every decision below is made on what the API says, read with the
// client's own credentials.
import { createWebhookHandler, isConsentNotification, isMaintenanceNotification } from "@fdxkit/client/webhooks";

/**
 * @param {object} options
 * @param {import("@fdxkit/client").FdxClient} options.client
 * @param {Set<string>} options.blockedAccounts accounts this app must stop using
 * @param {(line: string) => void} [options.log]
 * @param {(notification: import("@fdxkit/client/webhooks").Notification) => void} [options.onProcessed]
 */
export function createReceiver({ client, blockedAccounts, log = console.log, onProcessed = () => {} }) {
  return createWebhookHandler({
    async onNotification(notification) {
      if (isConsentNotification(notification)) {
        const consent = await client.consents.get(notification.notificationPayload.id);
        log(`consent ${consent.id} is ${consent.status}`);
        if (consent.status === "REVOKED" || consent.status === "EXPIRED") {
          for (const resource of consent.resources ?? []) {
            if (resource.resourceType === "ACCOUNT" && resource.resourceId) {
              blockedAccounts.add(resource.resourceId);
              log(`  stopped using account ${resource.resourceId}`);
            }
          }
        }
      } else if (isMaintenanceNotification(notification)) {
        const notice = await client.maintenance.get(notification.notificationPayload.id);
        log(`maintenance "${notice.title}" from ${notice.startTime} to ${notice.endTime}: ${notice.impactedService?.join(", ")}`);
      } else {
        // A category this version does not know yet: acknowledge it, keep it for later.
        log(`unhandled notification ${notification.category}/${notification.type}`);
      }
      onProcessed(notification);
    },
    // The answer is 500 (and the sender retries) when onNotification throws: log why.
    onError: (error) => console.error("webhook not processed:", error),
  });
}
