import { expect, it } from "vitest";
import { clip } from "../../src/internal/text.js";

it("keeps text of up to 200 characters, and cuts longer text to 200 with its ellipsis", () => {
  expect(clip("a".repeat(200))).toBe("a".repeat(200));
  expect(clip("a".repeat(201))).toBe(`${"a".repeat(199)}…`);
  expect(clip("a".repeat(201))).toHaveLength(200);
  expect(clip("")).toBe("");
});
