import * as z from "zod/mini";

/**
 * A string enum that stays open: the known values keep editor completion, and
 * a value a newer server adds is still accepted (`string & {}` stops
 * TypeScript from collapsing the union to plain `string`).
 */
export type OpenEnum<T extends string> = T | (string & {});

/**
 * Schema for an open enum: any string passes at run time (`base`, a string
 * schema with the caller's messages); the type argument
 * (`openEnum<typeof KNOWN>()`) lists the known values. A type rather than an
 * argument, so bundles need not carry the value lists. The cast is only a
 * type: a string schema whose output type names the known values.
 */
export function openEnum<T extends readonly string[]>(base: z.ZodMiniString = z.string()): z.ZodMiniType<OpenEnum<T[number]>> {
  return base as z.ZodMiniType<OpenEnum<T[number]>>;
}

/**
 * A generated response type with every string-literal union opened
 * (`"A" | "B"` → `"A" | "B" | (string & {})`), recursively. The public
 * response types are these, so they say what the SDK accepts.
 */
export type OpenEnums<T> = T extends string
  ? string extends T
    ? T
    : OpenEnum<T>
  : T extends readonly (infer U)[]
    ? OpenEnums<U>[]
    : T extends object
      ? { [K in keyof T]: OpenEnums<T[K]> }
      : T;
