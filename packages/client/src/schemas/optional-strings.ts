import * as z from "zod/mini";

/** The schema of one optional string field. zod schemas hold no state, so every field can share it. */
const optionalString = z.optional(z.string());

/**
 * Fields that are each an optional string, to spread into `z.looseObject`: most
 * of the service's response fields are, and the service marks few required.
 * The keys stay literal, so the object's inferred type names every field.
 */
export function optionalStrings<const K extends string>(...keys: K[]): Record<K, typeof optionalString> {
  return Object.fromEntries(keys.map((key) => [key, optionalString])) as Record<K, typeof optionalString>;
}
