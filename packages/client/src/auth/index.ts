/**
 * `@fdxkit/client/auth`: end users connect their bank — the
 * OpenID Connect authorization-code flow with PKCE, connections with
 * rotating refresh tokens shared safely across processes, and stores.
 * Web APIs only (Fetch, Web Crypto).
 *
 * @module
 */
export {
  createAuthClient,
  type AuthClient,
  type AuthClientOptions,
  type AuthEndpoints,
  type AuthorizationRequest,
  type AuthorizationUrlOptions,
  type CallbackChecks,
  type TokenCallOptions,
} from "./auth-client.js";
export { createConnections, type Connections, type ConnectionsOptions, type RefreshOptions } from "./connections.js";
export type { ApplyNotificationOptions, ConsentReader, NotificationResult } from "./notification.js";
export { memoryConnectionStore } from "./memory-store.js";
export { encryptConnectionStore, type EncryptedConnectionStore, type EncryptionOptions } from "./encrypt-store.js";
export {
  FdxAuthError,
  FdxConnectionStoreError,
  FdxReauthorizationRequiredError,
  type FdxAuthErrorCode,
  type FdxAuthErrorInit,
  type FdxReauthorizationReason,
} from "./errors.js";
export type { Connection, ConnectionLease, ConnectionStatus, ConnectionStore, TokenSet } from "./types.js";
export type { TokenContext } from "../core/options.js";
export { openAuthorization, sealAuthorization, type OpenAuthorizationOptions, type PendingAuthorization, type SealAuthorizationOptions } from "./seal.js";
