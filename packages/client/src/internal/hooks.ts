import { FdxError } from "../core/error.js";
import type { HookEventBase } from "../core/options.js";
import type { Call } from "./types.js";

/** What every hook is told of the attempt it observes. */
export const hookEvent = (call: Call, attempt: number, interactionId: string | undefined): HookEventBase => ({
  method: call.method,
  url: call.url,
  attempt,
  interactionId,
});

/** Runs a hook; a hook that throws fails the call, with what it threw as the cause. */
export async function runHook<E>(name: string, hook: (event: E) => void | Promise<void>, payload: E): Promise<void> {
  try {
    await hook(payload);
  } catch (error) {
    throw new FdxError(`The ${name} hook threw (see cause)`, { cause: error, code: "hook_failed" });
  }
}
