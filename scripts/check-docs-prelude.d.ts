// Free variables the README snippets assume, for scripts/check-docs.mjs.
// Every snippet is its own module, so its own imports and declarations shadow
// these. Add a name here when many snippets share it; for one snippet, put
// `<!-- check-docs: prelude declare const x: T; -->` above its fence instead.
import type * as Client from "@fdxkit/client";
import type * as Webhooks from "@fdxkit/client/webhooks";
import type * as Auth from "@fdxkit/client/auth";

declare global {
  // The SDK's values, used in snippets that show only the lines that matter.
  const createClient: typeof Client.createClient;
  const clientCredentials: typeof Client.clientCredentials;
  const saveStatement: typeof import("@fdxkit/client/node").saveStatement;
  const FdxError: typeof Client.FdxError;
  const FdxApiError: typeof Client.FdxApiError;
  const FdxAbortError: typeof Client.FdxAbortError;
  const FdxConnectionError: typeof Client.FdxConnectionError;
  const FdxValidationError: typeof Client.FdxValidationError;
  const FdxResponseError: typeof Client.FdxResponseError;
  const FdxLinkError: typeof Client.FdxLinkError;
  const FdxErrorCode: typeof Client.FdxErrorCode;
  const join: typeof import("node:path").join;

  // What the reader already has at that point of the README.
  const client: Client.FdxClient;
  const baseUrl: string;
  const productsUrl: string;
  const token: string;
  const providerId: string;
  const accountId: string;
  const consentId: string;
  const id: string;
  const statement: Client.Statement;
  const notification: Webhooks.MaintenanceNotification;
  const input: Parameters<Client.FdxClient["subscriptions"]["create"]>[0];
  const outDir: string;
  const rawBody: string;
  /** End-user connections (docs/connections.md): the OAuth client's settings and the URL the browser came back on. */
  const issuer: string;
  const clientId: string;
  const clientSecret: string;
  const redirectUri: string;
  const callbackUrl: string;
  /** A client made with an end user's token function. */
  const user: Client.FdxClient;
  /** The OAuth client and connection manager of docs/connections.md. */
  const auth: Auth.AuthClient;
  const connections: Auth.Connections;
  /** A node-postgres pool (packages/postgres/README.md). */
  const pool: import("pg").Pool;
  const onNotification: (notification: Webhooks.Notification) => Promise<void>;
  /** An Express app. */
  const app: { post(path: string, handler: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void): void };

  // The reader's own functions.
  function getAccessToken(): Promise<string>;
  function fetchTokenFromYourBackend(): Promise<string>;
  function stopUsingAccounts(resources: readonly unknown[]): Promise<void>;
  function scheduleBanner(title?: string, startTime?: string, endTime?: string): Promise<void>;
  function archive(statement: Client.Statement): Promise<void>;
  function show(message: string): void;
  function showReconnectBanner(connectionId: string): Promise<void>;

  // vitest globals, in the msw test snippets.
  function beforeAll(fn: () => unknown): void;
  function afterEach(fn: () => unknown): void;
  function afterAll(fn: () => unknown): void;
  function it(name: string, fn: () => unknown): void;
}
