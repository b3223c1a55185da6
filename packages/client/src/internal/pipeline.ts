import createOpenApiClient, { type Client } from "openapi-fetch";
import { FdxResponseError, FdxValidationError, type FdxIssue } from "../core/errors/index.js";
import type { ApiVersions, ClientOptions, FetchLike, RequestOptions } from "../core/options.js";
import type { paths as ConsentPaths } from "../generated/consents.js";
import type { paths as NotificationPaths } from "../generated/notifications.js";
import type { paths as StatementPaths } from "../generated/statements.js";
import { OutgoingRequest, type Outgoing } from "./outgoing.js";
import { retryTimeoutIssues, createTransport, failure, type Transport } from "./transport.js";
import { trimBase } from "./url.js";
import { idCheck } from "./validation.js";

import type { ResponseKind } from "../schemas/responses.js";

/** Everything a resource needs: one transport, typed openapi-fetch clients over it, and the settings. */
export interface Pipeline {
  transport: Transport;
  notifications: Client<NotificationPaths>;
  consents: Client<ConsentPaths>;
  statements: Client<StatementPaths>;
  versions: ApiVersions;
  baseUrl: string;
  productsUrl: string;
  allowInsecureCallbackUrls: boolean;
  validateResponses: boolean;
}

const DEFAULT_VERSIONS: ApiVersions = { notifications: "v1", consents: "v1", statements: "v2" };

export function createPipeline(options: ClientOptions): Pipeline {
  const issues: FdxIssue[] = [];
  const baseUrl = checkBaseUrl(options.baseUrl, "baseUrl", issues);
  const productsUrl = checkBaseUrl(options.productsUrl ?? options.baseUrl, "productsUrl", issues);
  if (!(typeof options.token === "function" || (typeof options.token === "string" && options.token !== ""))) {
    issues.push({ path: "token", message: "must be a non-empty string or a function returning one" });
  }
  retryTimeoutIssues(options, issues);
  const versions = { ...DEFAULT_VERSIONS, ...definedOnly(options.versions) };
  // A version is a path segment too, checked as ids are: "." or ".." would climb out of the API's path.
  const versionCheck = idCheck();
  for (const [api, version] of Object.entries(versions)) {
    const message = versionCheck(version);
    if (message) issues.push({ path: `versions.${api}`, message });
  }
  if (issues.length) throw new FdxValidationError(issues);

  const transport = createTransport({
    token: options.token,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxRetries: options.maxRetries ?? 2,
  });
  // openapi-fetch serialises paths, queries and bodies; every request it makes goes through the transport.
  const fetch: FetchLike = (request) => transport.send(request);
  // openapi-fetch builds a light request; the transport makes the one that goes out.
  const Request = OutgoingRequest as unknown as typeof globalThis.Request;
  // Every operation answers JSON; without this the platform would send `Accept: */*`.
  const headers = { Accept: "application/json" };
  return {
    transport,
    notifications: createOpenApiClient<NotificationPaths>({ baseUrl, fetch, Request, headers }),
    consents: createOpenApiClient<ConsentPaths>({ baseUrl, fetch, Request, headers }),
    statements: createOpenApiClient<StatementPaths>({ baseUrl: productsUrl, fetch, Request, headers }),
    versions,
    baseUrl,
    productsUrl,
    allowInsecureCallbackUrls: options.allowInsecureCallbackUrls ?? false,
    validateResponses: options.validateResponses ?? false,
  };
}

function checkBaseUrl(value: unknown, path: string, issues: FdxIssue[]): string {
  if (typeof value === "string") {
    try {
      const url = new URL(value);
      if ((url.protocol === "https:" || url.protocol === "http:") && !url.search && !url.hash && !url.username && !url.password) {
        return trimBase(url.href);
      }
    } catch {
      // reported below
    }
  }
  issues.push({ path, message: "must be an absolute http(s) URL without query, fragment or credentials" });
  return "";
}

function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Applies a response check when `validateResponses` is on. */
export async function checkResponse<T>(pipeline: Pipeline, status: number, value: unknown, kind: ResponseKind): Promise<T> {
  if (!pipeline.validateResponses) return value as T;
  // zod and the response schemas load only for clients that opt in. A failed
  // load (a browser that cannot fetch the chunk) is an FdxError like any other.
  const { responseIssues } = await import("../schemas/responses.js").catch((error: unknown) => {
    throw failure("Loading the response schemas", error);
  });
  const issues = responseIssues(kind, value);
  if (issues.length) throw new FdxResponseError(status, issues);
  return value as T;
}

/**
 * The transport as openapi-fetch's `fetch`, the body read inside the attempt.
 * The `ReadResponse` is not a platform `Response`, but openapi-fetch reads
 * only the status, headers and text()/json() of a 2xx response.
 */
export function sendRead(pipeline: Pipeline, request: Outgoing, options: RequestOptions | undefined): Promise<Response> {
  return pipeline.transport.send(request, options, { readBody: true }) as unknown as Promise<Response>;
}

/**
 * Runs one openapi-fetch call through the transport with per-call options,
 * the body read inside the attempt. Returns openapi-fetch's `data`
 * (undefined for an empty body) and the status. A 2xx body that is not JSON
 * throws `FdxResponseError`.
 */
export async function requestData(
  pipeline: Pipeline,
  options: RequestOptions | undefined,
  call: (fetch: FetchLike) => Promise<{ data?: unknown }>,
): Promise<{ data: unknown; status: number }> {
  let status = 0;
  const fetch: FetchLike = async (request) => {
    const response = await sendRead(pipeline, request, options);
    status = response.status;
    return response;
  };
  try {
    const { data } = await call(fetch);
    return { data, status };
  } catch (error) {
    if (error instanceof SyntaxError) {
      throw new FdxResponseError(status, [{ path: "", message: `response body is not valid JSON (${error.message})` }], {
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * Runs one openapi-fetch call and returns its parsed JSON body: what is left
 * to catch after the transport is a 2xx body that is empty or not JSON, or
 * (with `validateResponses`) not the documented shape.
 */
export async function requestJson<T>(
  pipeline: Pipeline,
  options: RequestOptions | undefined,
  call: (fetch: FetchLike) => Promise<{ data?: unknown }>,
  kind?: ResponseKind,
): Promise<T> {
  const { data, status } = await requestData(pipeline, options, call);
  if (data === undefined) throw new FdxResponseError(status, [{ path: "", message: "response body is empty" }]);
  // Awaited here, and skipped when off: an async function returning a promise costs extra turns on every call.
  return kind && pipeline.validateResponses ? await checkResponse(pipeline, status, data, kind) : (data as T);
}
