// POST /webhooks: the service's consent notifications. A CONSENT_REVOKED
// (the user ended the access at their bank) ends the user's connection here
// at once, on whichever instance receives it, so every instance's next page
// asks the user to reconnect. Webhooks carry no signature:
// `applyNotification` reads the consent through the API with the service
// client before it changes anything, so a forged post changes nothing.
import { toNodeListener } from "@fdxkit/client/node";
import { createWebhookHandler, isConsentNotification } from "@fdxkit/client/webhooks";

/**
 * The webhook receiver as a node:http listener.
 * @param {object} options
 * @param {import("@fdxkit/client").FdxClient} options.client the service-token client (consents are read with it)
 * @param {import("@fdxkit/client/auth").Connections} options.connections
 * @param {import("@fdxkit/client/webhooks").DedupeStore} options.dedupe shared by every instance, so a delivery is handled once
 * @param {(line: string) => void} [options.log]
 * @returns {(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void}
 */
export function createWebhookListener({ client, connections, dedupe, log = console.log }) {
  const handler = createWebhookHandler({
    dedupe,
    onNotification: async (notification) => {
      if (!isConsentNotification(notification)) return;
      // A failure to read the consent throws: the handler answers 500 and the service delivers again.
      const { action, connection } = await connections.applyNotification(notification, { client });
      // Ids only: the connection's tokens never reach a log.
      log(`webhook ${notification.type} consent ${notification.notificationPayload.id}: ${action}${connection ? ` (connection ${connection.id})` : ""}`);
    },
    onError: (error) => console.error("webhook not processed:", error instanceof Error ? error.message : error),
  });
  return toNodeListener(handler);
}
