import { FdxError, FdxResponseError, FdxValidationError, type FdxIssue } from "../core/error.js";
import type { ApiVersions, ClientOptions, FetchLike, RequestOptions } from "../core/options.js";
import type { ResponseKind } from "../schemas/responses.js";
import { request, retryTimeoutIssues } from "./request.js";
import { sendFetch } from "./send-fetch.js";
import type { Call, Sender, Transport } from "./types.js";
import { trimBase } from "./url.js";
import { checkActorType } from "./actor.js";
import { checkRateBudget } from "./budget.js";
import { isRecord } from "./is-record.js";
import { checkInteger, httpUrl } from "./checks.js";
import { buildPath, type ApiPath, type PathParams } from "./paths.js";
import { checkIds, idCheck } from "./validation.js";

/** A client's settings, checked once: what resources, pages and downloads need. */
export interface Context extends Transport {
  baseUrl: string;
  productsUrl: string;
  /** The origin of `productsUrl`: links the server sends resolve against it, and may not leave it. */
  productsOrigin: string;
  versions: ApiVersions;
  allowInsecureCallbackUrls: boolean;
  validateResponses: boolean;
  /** A download's body, counted after decompression, at most. */
  maxDownloadBytes: number;
}

const DEFAULT_VERSIONS: ApiVersions = { notifications: "v1", consents: "v1", statements: "v2" };
const HOOK_NAMES = ["onRequest", "onResponse", "onRetry"] as const;

/**
 * Checks the options of `createClient`; throws `FdxValidationError` listing
 * every bad one. `nodeSender` is Node's own transport where the entry offers
 * it: used unless the options give a `fetch`.
 */
export function createContext(options: ClientOptions, nodeSender?: Sender): Context {
  const issues: FdxIssue[] = [];
  const baseUrl = checkBaseUrl(options.baseUrl, "baseUrl", issues);
  const productsUrl = checkBaseUrl(options.productsUrl ?? options.baseUrl, "productsUrl", issues);
  if (!(typeof options.token === "function" || (typeof options.token === "string" && options.token !== ""))) {
    issues.push({ path: "token", message: "must be a non-empty string or a function returning one" });
  }
  retryTimeoutIssues(options, issues);
  const { maxResponseBytes = 16 * 1024 * 1024, maxDownloadBytes = 1024 * 1024 * 1024, interactionIds = true, hooks } = options;
  checkInteger(maxResponseBytes, 1, "maxResponseBytes", issues);
  checkInteger(maxDownloadBytes, 1, "maxDownloadBytes", issues);
  if (typeof interactionIds !== "boolean") issues.push({ path: "interactionIds", message: "must be a boolean" });
  if (hooks !== undefined) {
    if (typeof hooks !== "object" || hooks === null) issues.push({ path: "hooks", message: "must be an object" });
    else {
      for (const name of HOOK_NAMES) {
        if (hooks[name] !== undefined && typeof hooks[name] !== "function") issues.push({ path: `hooks.${name}`, message: "must be a function" });
      }
    }
  }
  checkActorType(options.actorType, issues);
  checkRateBudget(options.rateBudget, issues);
  const versions = { ...DEFAULT_VERSIONS, ...definedOnly(options.versions) };
  // A version is a path segment too, checked as ids are: "." or ".." would climb out of the API's path.
  const versionCheck = idCheck();
  for (const [api, version] of Object.entries(versions)) {
    const message = versionCheck(version);
    if (message) issues.push({ path: `versions.${api}`, message });
  }
  if (issues.length) throw new FdxValidationError(issues);
  return {
    token: options.token,
    fetch: options.fetch as FetchLike | undefined,
    send: nodeSender && !options.fetch ? nodeSender : sendFetch,
    // Checked by the node entry, the one that uses it (index.node.ts).
    agent: options.agent,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxRetries: options.maxRetries ?? 2,
    maxResponseBytes,
    maxDownloadBytes,
    interactionIds,
    // No hook at all: the request path then skips building hook events.
    hooks: hooks && HOOK_NAMES.some((name) => hooks[name]) ? hooks : undefined,
    baseUrl,
    productsUrl,
    productsOrigin: new URL(productsUrl).origin,
    versions,
    allowInsecureCallbackUrls: options.allowInsecureCallbackUrls ?? false,
    validateResponses: options.validateResponses ?? false,
    actorType: options.actorType,
    rateBudget: options.rateBudget,
    tokenMemo: { last: undefined },
  };
}

function checkBaseUrl(value: unknown, path: string, issues: FdxIssue[]): string {
  const url = httpUrl(value);
  if (url && !url.search && !url.hash) return trimBase(url.href);
  issues.push({ path, message: "must be an absolute http(s) URL without query, fragment or credentials" });
  return "";
}

/** `value` without its undefined fields: a spread of it keeps what they would have erased. */
export function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A call whose answer must be a JSON object. */
export async function callBody<T>(ctx: Context, call: Call, kind: ResponseKind): Promise<T> {
  const { data, status, interactionId } = await request(ctx, call, "json");
  if (data === undefined) throw new FdxResponseError(status, [{ path: "", message: "response body is empty" }], { interactionId });
  // Checked with or without validateResponses: a string or an array where an object is due is no answer at all.
  if (!isRecord(data)) throw new FdxResponseError(status, [{ path: "", message: "response body must be a JSON object" }], { interactionId });
  // Awaited only when on: the check costs a promise turn on every call otherwise.
  if (ctx.validateResponses) await checkResponse(data, kind, status, interactionId);
  return data as T;
}

/**
 * GETs one item named by the ids in its path, under the client's version of
 * `api`. The ids are checked first, so a bad one rejects with nothing sent;
 * the answer must be a JSON object.
 */
export async function getById<T, P extends ApiPath>(
  ctx: Context,
  template: P,
  api: keyof ApiVersions,
  ids: Omit<PathParams<P>, "version">,
  kind: ResponseKind,
  options?: RequestOptions,
): Promise<T> {
  checkIds(ids);
  const url = ctx.baseUrl + buildPath(template, { version: ctx.versions[api], ...ids } as PathParams<P>);
  return await callBody(ctx, { method: "GET", url, options }, kind);
}

/** Checks a response body against its schema (`validateResponses`). */
export async function checkResponse(value: unknown, kind: ResponseKind, status: number, interactionId: string | undefined): Promise<void> {
  // zod and the response schemas load only for clients that opt in. A failed
  // load (a browser that cannot fetch the chunk) is an FdxError like any other.
  const { responseIssues } = await import("../schemas/responses.js").catch((error: unknown) => {
    throw new FdxError("Loading the response schemas failed (see cause)", { cause: error, code: "schema_load_failed" });
  });
  const issues = responseIssues(kind, value);
  if (issues.length) throw new FdxResponseError(status, issues, { interactionId });
}
