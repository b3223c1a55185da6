// The options of createConnections, checked all at once so that one error names every bad field.
import { FdxValidationError, type FdxIssue } from "../../core/error.js";
import type { AuthClient } from "../auth-client.js";
import type { ConnectionStore } from "../types.js";
import type { ConnectionsOptions } from "./types.js";

/** The checked options, defaults filled in. */
export interface Settings {
  auth: AuthClient;
  store: ConnectionStore;
  refreshBeforeMs: number;
  leaseMs: number;
  cacheTtlMs: number;
  cacheSize: number;
  bearer: "id_token" | "access_token";
  onStatusChange: ConnectionsOptions["onStatusChange"];
}

export function readOptions(options: ConnectionsOptions): Settings {
  const issues: FdxIssue[] = [];
  const { auth, store } = options ?? ({} as ConnectionsOptions);
  if (typeof auth?.refresh !== "function" || typeof auth.exchangeCode !== "function")
    issues.push({ path: "auth", message: "must be an AuthClient (createAuthClient)" });
  if (typeof store?.get !== "function" || typeof store.compareAndSet !== "function" || typeof store.list !== "function" || typeof store.delete !== "function") {
    issues.push({ path: "store", message: "must be a ConnectionStore" });
  }
  const number = (path: keyof ConnectionsOptions, fallback: number, min: number) => {
    const value = options?.[path] ?? fallback;
    if (!(Number.isInteger(value) && (value as number) >= min)) issues.push({ path, message: `must be an integer >= ${min}` });
    return value as number;
  };
  const refreshBeforeMs = number("refreshBeforeMs", 300_000, 0);
  const leaseMs = number("leaseMs", 30_000, 10);
  const cacheTtlMs = number("cacheTtlMs", 60_000, 0);
  const cacheSize = number("cacheSize", 10_000, 1);
  const bearer = options?.bearer ?? "id_token";
  if (bearer !== "id_token" && bearer !== "access_token") issues.push({ path: "bearer", message: 'must be "id_token" or "access_token"' });
  const onStatusChange = options?.onStatusChange;
  if (onStatusChange !== undefined && typeof onStatusChange !== "function") issues.push({ path: "onStatusChange", message: "must be a function" });
  if (issues.length) throw new FdxValidationError(issues);
  return { auth, store, refreshBeforeMs, leaseMs, cacheTtlMs, cacheSize, bearer, onStatusChange };
}

/** A connection or consent id given by the app: a non-empty string. */
export function checkId(id: unknown, path = "id"): void {
  if (typeof id !== "string" || id === "") throw new FdxValidationError([{ path, message: "must be a non-empty string" }]);
}
