import { createContext, definedOnly } from "./internal/context.js";
import { consentsResource, type ConsentsResource } from "./resources/consents.js";
import { maintenanceResource, type MaintenanceResource } from "./resources/maintenance.js";
import { statementsResource, type StatementsResource } from "./resources/statements.js";
import { subscriptionsResource, type SubscriptionsResource } from "./resources/subscriptions.js";
import type { ClientOptions } from "./core/options.js";
import type { Sender } from "./internal/types.js";

/** The fdxkit client: one namespace per service area, all over one request function. */
export interface FdxClient {
  subscriptions: SubscriptionsResource;
  maintenance: MaintenanceResource;
  consents: ConsentsResource;
  statements: StatementsResource;
  /**
   * A new client with `options` changed and the rest as this one's, e.g. one end user's token on the service client's
   * configuration. Cheap enough to call per request; checks the options as `createClient` does.
   *
   * @example
   * const user = client.withOptions({ token: connections.token("user-42") });
   * for await (const statement of user.statements.list({ providerId, accountId })) console.log(statement.statementId);
   */
  withOptions(options: Partial<ClientOptions>): FdxClient;
}

/**
 * Creates a client. Throws `FdxValidationError` for unusable options (a relative `baseUrl`, a missing token); makes no request.
 *
 * @example
 * const client = createClient({ baseUrl: "https://api.example.com", token: process.env.FDX_TOKEN! });
 * const subscription = await client.subscriptions.create({ category: "CONSENT", type: "CONSENT_REVOKED", callbackUrl: "https://me.example/hooks" });
 */
export function createClient(options: ClientOptions): FdxClient {
  return clientWith(options, undefined);
}

/** A client whose calls go through `nodeSender` when given and the options name no `fetch`; its `withOptions` keeps that choice. */
export function clientWith(options: ClientOptions, nodeSender: Sender | undefined): FdxClient {
  const ctx = createContext(options, nodeSender);
  return {
    subscriptions: subscriptionsResource(ctx),
    maintenance: maintenanceResource(ctx),
    consents: consentsResource(ctx),
    statements: statementsResource(ctx),
    // Options given as undefined keep this client's (a spread would erase them).
    withOptions: (changes) => clientWith({ ...options, ...(definedOnly(changes) as Partial<ClientOptions>) }, nodeSender),
  };
}
