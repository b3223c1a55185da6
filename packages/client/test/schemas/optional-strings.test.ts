// The optional-string fields the response schemas are built from: absent or a
// string passes, anything else fails naming the field, and the inferred type
// keeps each field's name.
import { describe, expect, expectTypeOf, it } from "vitest";
import * as z from "zod/mini";
import { optionalStrings } from "../../src/schemas/optional-strings.js";

const schema = z.looseObject({ ...optionalStrings("id", "title"), count: z.optional(z.number()) });

describe("optionalStrings", () => {
  it("makes one optional string field per key, and only those", () => {
    expect(Object.keys(optionalStrings("id", "title"))).toEqual(["id", "title"]);
    expect(optionalStrings()).toEqual({});
  });

  it("accepts absent fields and strings, and keeps unknown fields", () => {
    expect(z.parse(schema, {})).toEqual({});
    expect(z.parse(schema, { id: "m-1", title: "", extra: 1 })).toEqual({ id: "m-1", title: "", extra: 1 });
  });

  it("rejects a field that is not a string, naming it", () => {
    const result = z.safeParse(schema, { id: 7, title: null });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path.join("."), issue.code])).toEqual([
      ["id", "invalid_type"],
      ["title", "invalid_type"],
    ]);
  });

  it("infers each field by name as an optional string", () => {
    expectTypeOf<z.output<typeof schema>>().toEqualTypeOf<{
      id?: string | undefined;
      title?: string | undefined;
      count?: number | undefined;
      [key: string]: unknown;
    }>();
  });
});
