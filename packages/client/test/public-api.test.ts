// The public signatures of DESIGN.md §3, checked by `tsc` (vitest runs the trivial runtime part).
import { describe, expectTypeOf, it } from "vitest";
import {
  clientCredentials,
  createClient,
  type FdxAbortError,
  type FdxApiError,
  type FdxConnectionError,
  type FdxError,
  FdxErrorCode,
  type FdxLinkError,
  type FdxRateLimitError,
  type FdxResponseError,
  type FdxTimeoutError,
  type FdxValidationError,
  type FdxWebhookError,
  type ActorType,
  type ClientOptions,
  type ConsentGrant,
  type FdxClient,
  type MaintenanceNotification,
  type Notification,
  type RequestOptions,
  type Subscription,
  type SubscriptionInput,
  type TokenContext,
  type SubscriptionUpdate,
} from "../src/index.js";

describe("createClient", () => {
  it("takes every option of §3", () => {
    expectTypeOf(createClient).parameter(0).toEqualTypeOf<ClientOptions>();
    expectTypeOf(createClient).returns.toEqualTypeOf<FdxClient>();
    expectTypeOf<ClientOptions>().toHaveProperty("baseUrl").toEqualTypeOf<string>();
    expectTypeOf<{
      baseUrl: string;
      productsUrl: string;
      token: () => Promise<string>;
      fetch: typeof fetch;
      timeoutMs: number;
      maxRetries: number;
      maxResponseBytes: number;
      maxDownloadBytes: number;
      versions: { statements: string };
      allowInsecureCallbackUrls: boolean;
      validateResponses: boolean;
      actorType: "user" | "batch";
    }>().toExtend<ClientOptions>();
    expectTypeOf<ClientOptions["actorType"]>().toEqualTypeOf<ActorType | undefined>();
    expectTypeOf<ActorType>().toEqualTypeOf<"user" | "batch">();
    expectTypeOf<{ baseUrl: string; token: string }>().toExtend<ClientOptions>();
    expectTypeOf<{ baseUrl: string; token: () => string }>().toExtend<ClientOptions>();
    expectTypeOf<{ baseUrl: string }>().not.toExtend<ClientOptions>();
  });

  it("RequestOptions has signal, timeoutMs, maxRetries, headers, interactionId, actorType, providerId and maxDownloadBytes, all optional", () => {
    expectTypeOf<RequestOptions>().toEqualTypeOf<{
      signal?: AbortSignal;
      timeoutMs?: number;
      maxRetries?: number;
      headers?: Record<string, string>;
      interactionId?: string;
      actorType?: "user" | "batch";
      providerId?: string;
      maxDownloadBytes?: number;
    }>();
  });
});

describe("methods", () => {
  it("subscriptions", () => {
    expectTypeOf<FdxClient["subscriptions"]["create"]>().toEqualTypeOf<(input: SubscriptionInput, options?: RequestOptions) => Promise<Subscription>>();
    expectTypeOf<FdxClient["subscriptions"]["list"]>().toEqualTypeOf<(options?: RequestOptions) => Promise<Subscription[]>>();
    expectTypeOf<FdxClient["subscriptions"]["get"]>().toEqualTypeOf<(subscriptionId: string, options?: RequestOptions) => Promise<Subscription>>();
    expectTypeOf<FdxClient["subscriptions"]["update"]>().toEqualTypeOf<
      (subscriptionId: string, patch: SubscriptionUpdate, options?: RequestOptions) => Promise<Subscription>
    >();
    expectTypeOf<FdxClient["subscriptions"]["delete"]>().toEqualTypeOf<(subscriptionId: string, options?: RequestOptions) => Promise<void>>();
    expectTypeOf<FdxClient["subscriptions"]["sendTestEvent"]>().toEqualTypeOf<(subscriptionId: string, options?: RequestOptions) => Promise<Notification>>();
  });

  it("maintenance and consents", () => {
    expectTypeOf<FdxClient["maintenance"]["get"]>().toEqualTypeOf<
      (notificationPayloadId: string, options?: RequestOptions) => Promise<MaintenanceNotification>
    >();
    expectTypeOf<FdxClient["consents"]["get"]>().toEqualTypeOf<(consentId: string, options?: RequestOptions) => Promise<ConsentGrant>>();
  });

  it("inputs use the service's closed enums", () => {
    expectTypeOf<SubscriptionInput["category"]>().toEqualTypeOf<"MAINTENANCE" | "CONSENT">();
    expectTypeOf<SubscriptionInput["type"]>().toEqualTypeOf<"SERVICE" | "PLANNED_OUTAGE" | "CONSENT_UPDATED" | "CONSENT_REVOKED">();
    expectTypeOf<{ category: "BILLING"; type: "SERVICE"; callbackUrl: string }>().not.toExtend<SubscriptionInput>();
  });

  it("responses carry the documented fields", () => {
    expectTypeOf<Subscription["subscriptionId"]>().toEqualTypeOf<string>();
    expectTypeOf<Subscription["callbackUrl"]>().toEqualTypeOf<string>();
    expectTypeOf<MaintenanceNotification["impactedService"]>().toEqualTypeOf<string[] | undefined>();
  });
});

describe("errors", () => {
  it("FdxApiError fields", () => {
    expectTypeOf<FdxApiError>().toExtend<FdxError>();
    expectTypeOf<FdxApiError["status"]>().toEqualTypeOf<number>();
    expectTypeOf<FdxApiError["code"]>().toEqualTypeOf<FdxErrorCode | (string & {}) | undefined>();
    expectTypeOf<"1205">().toExtend<FdxApiError["code"]>();
    expectTypeOf<"a provider's own code">().toExtend<FdxApiError["code"]>();
    expectTypeOf<FdxApiError["message"]>().toEqualTypeOf<string>();
    expectTypeOf<FdxApiError["debugMessage"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<FdxApiError["body"]>().toEqualTypeOf<unknown>();
    expectTypeOf<FdxApiError["headers"]>().toEqualTypeOf<Record<string, string>>();
    expectTypeOf<FdxApiError["method"]>().toEqualTypeOf<string>();
    expectTypeOf<FdxApiError["url"]>().toEqualTypeOf<string>();
    expectTypeOf<FdxRateLimitError["retryAfterMs"]>().toEqualTypeOf<number | undefined>();
  });

  it("the other classes", () => {
    expectTypeOf<FdxTimeoutError>().toExtend<FdxConnectionError>();
    expectTypeOf<FdxConnectionError["cause"]>().toEqualTypeOf<unknown>();
    expectTypeOf<FdxAbortError>().toExtend<FdxError>();
    expectTypeOf<FdxValidationError["issues"]>().toEqualTypeOf<{ path: string; message: string }[]>();
    expectTypeOf<FdxResponseError["issues"]>().toEqualTypeOf<{ path: string; message: string }[]>();
    expectTypeOf<FdxResponseError["status"]>().toEqualTypeOf<number>();
    expectTypeOf<FdxLinkError["href"]>().toEqualTypeOf<string>();
    expectTypeOf<FdxWebhookError["issues"]>().toEqualTypeOf<{ path: string; message: string }[]>();
  });

  it("FdxErrorCode holds string constants comparable with code", () => {
    expectTypeOf(FdxErrorCode.Unauthorized).toEqualTypeOf<"1205">();
    expectTypeOf(FdxErrorCode.NotFound).toEqualTypeOf<"NotFound">();
    expectTypeOf(FdxErrorCode.CustomerNotAuthorized).toEqualTypeOf<"602">();
    expectTypeOf(FdxErrorCode.InvalidInput).toExtend<FdxApiError["code"]>();
  });
});

describe("clientCredentials", () => {
  it("returns a token function createClient accepts", () => {
    const tokens = clientCredentials({ tokenUrl: "https://a.test/token", clientId: "id", clientSecret: "s", scope: "x" });
    expectTypeOf(tokens).toEqualTypeOf<(context?: TokenContext) => Promise<string>>();
    expectTypeOf(tokens).toExtend<ClientOptions["token"]>();
  });
});

describe("webhooks you can trust (DESIGN.md §4, §5)", () => {
  it("createWebhookServer, getPeerCertificate, dedupe and memoryDedupe have the contract's shapes", async () => {
    const node = await import("../src/node/index.js");
    const webhooks = await import("../src/webhooks/index.js");
    expectTypeOf(node.createWebhookServer).returns.toEqualTypeOf<import("node:https").Server>();
    expectTypeOf<{
      handler: (request: Request) => Promise<Response>;
      tls: { key: string; cert: string; ca: string };
      clientCertificates: { fingerprints: string[] };
      bodyTimeoutMs: number;
    }>().toExtend<Parameters<typeof node.createWebhookServer>[0]>();
    expectTypeOf(node.getPeerCertificate).parameter(0).toEqualTypeOf<Request>();
    expectTypeOf<NonNullable<ReturnType<typeof node.getPeerCertificate>>>().toExtend<{ subject: object; fingerprint256: string; validTo: string }>();
    expectTypeOf(webhooks.memoryDedupe).parameter(0).toEqualTypeOf<{ max?: number; ttlMs?: number } | undefined>();
    expectTypeOf<{
      claim(notificationId: string, ttlMs: number): Promise<boolean>;
      release(notificationId: string): Promise<void>;
    }>().toExtend<import("../src/webhooks/index.js").DedupeStore>();
    expectTypeOf<import("../src/webhooks/index.js").DedupeStore>().toExtend<NonNullable<import("../src/webhooks/index.js").WebhookHandlerOptions["dedupe"]>>();
  });
});

describe("typed discriminants", () => {
  it("FdxError.code names what failed; FdxAuthError.error and the reauthorization reason are open unions", async () => {
    const { FdxAuthError, FdxReauthorizationRequiredError } = await import("../src/auth/index.js");
    type AuthCode = import("../src/auth/index.js").FdxAuthErrorCode;
    type Reason = import("../src/auth/index.js").FdxReauthorizationReason;
    expectTypeOf<import("../src/index.js").FdxFailureCode>().toEqualTypeOf<"hook_failed" | "token_failed" | "schema_load_failed">();
    expectTypeOf<"schema_load_failed">().toExtend<FdxError["code"]>();
    expectTypeOf<InstanceType<typeof FdxAuthError>["error"]>().toEqualTypeOf<AuthCode>();
    expectTypeOf<"access_denied" | "invalid_state" | "no_refresh_token" | "invalid_grant" | "an IdP's own">().toExtend<AuthCode>();
    expectTypeOf<InstanceType<typeof FdxReauthorizationRequiredError>["reason"]>().toEqualTypeOf<Reason>();
    expectTypeOf<"invalid_grant" | "revoked" | "not_found" | "reauthorization_required">().toExtend<Reason>();
  });
});
