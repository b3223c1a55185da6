import type { FdxIssue } from "../core/error.js";
import type { ActorType } from "../core/options.js";

/** FDX's header for who is asking; its values are the actor types in upper case. */
export const ACTOR_HEADER = "fdx-api-actor-type";

/**
 * Whether `value` is an actor type, or absent; anything else adds its issue
 * to `issues` (one check for the client's options and for every call's).
 */
export function checkActorType(value: unknown, issues: FdxIssue[]): value is ActorType | undefined {
  if (value === undefined || value === "user" || value === "batch") return true;
  issues.push({ path: "actorType", message: 'must be "user" or "batch"' });
  return false;
}
