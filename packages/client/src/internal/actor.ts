import type { FdxIssue } from "../core/error.js";
import type { ActorType } from "../core/options.js";

/** FDX's header for who is asking; its values are the actor types in upper case. */
export const ACTOR_HEADER = "fdx-api-actor-type";

export const isActorType = (value: unknown): value is ActorType => value === "user" || value === "batch";

/** The issue of an actor type that is neither `"user"` nor `"batch"` (a new object each time: errors hand their issues to callers). */
export const actorIssue = (): FdxIssue => ({ path: "actorType", message: 'must be "user" or "batch"' });
