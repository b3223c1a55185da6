import * as z from "zod/mini";
import type { ResponseCheck } from "./pipeline.js";
import { toIssues } from "./validation.js";

/** Turns a zod schema into the structural check `requestJson` applies under `validateResponses`. */
export function responseCheck<T>(schema: z.ZodMiniType<T>): ResponseCheck<T> {
  return (value) => {
    const result = z.safeParse(schema, value);
    return result.success ? { ok: true, value: result.data } : { ok: false, issues: toIssues(result.error.issues) };
  };
}
