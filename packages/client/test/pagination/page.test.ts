// What a page body may hold, and what each malformed part is reported as
// (the paths and messages users see in FdxResponseError.issues).
import { describe, expect, it } from "vitest";
import { FdxResponseError } from "../../src/index.js";
import { readPage } from "../../src/pagination/page.js";

const issuesOf = (body: unknown): unknown => {
  try {
    readPage(body, 200, "iid-1");
  } catch (error) {
    expect(error).toBeInstanceOf(FdxResponseError);
    expect((error as FdxResponseError).status).toBe(200);
    expect((error as FdxResponseError).interactionId).toBe("iid-1");
    return (error as FdxResponseError).issues;
  }
  throw new Error("readPage accepted the body");
};

describe("readPage", () => {
  it.each([
    ["no links at all", { statements: [{ statementId: "a" }] }, undefined, undefined],
    ["links null", { links: null }, undefined, undefined],
    ["next and prev null", { links: { next: null, prev: null } }, undefined, undefined],
    ["empty hrefs", { links: { next: { href: "" }, prev: { href: "" } } }, undefined, undefined],
    ["hrefs null", { links: { next: { href: null }, prev: {} } }, undefined, undefined],
    ["both hrefs", { links: { next: { href: "/n?o=2" }, prev: { href: "/p?o=0" } } }, "/n?o=2", "/p?o=0"],
  ])("takes %s", (_, body, nextHref, prevHref) => {
    const page = readPage(body, 200, undefined);
    expect(page).toEqual({ statements: (body as { statements?: unknown[] }).statements ?? [], nextHref, prevHref, nextOffset: undefined });
  });

  it.each([
    [{ page: { nextOffset: "c-2" } }, "c-2"],
    [{ page: { nextOffset: 50 } }, "50"],
    [{ page: { nextOffset: 0 } }, "0"],
    [{ page: { nextOffset: "" } }, undefined],
    [{ page: { nextOffset: null, totalElements: 3 } }, undefined],
    [{ page: {} }, undefined],
    [{ page: null }, undefined],
  ])("reads an FDX page object %j as nextOffset %j", (body, nextOffset) => {
    expect(readPage(body, 200, undefined).nextOffset).toBe(nextOffset);
  });

  it.each([
    ["an empty body", undefined, [{ path: "", message: "response body is empty" }]],
    ["an array", [], [{ path: "", message: "must be a statement list object" }]],
    ["a string", "statements", [{ path: "", message: "must be a statement list object" }]],
    ["statements not an array", { statements: {} }, [{ path: "statements", message: "must be an array" }]],
    ["links not an object", { links: "next" }, [{ path: "links", message: "must be an object" }]],
    ["a link that is a string", { links: { next: "/n" } }, [{ path: "links.next", message: "must be an object with an href" }]],
    ["an href that is a number", { links: { prev: { href: 42 } } }, [{ path: "links.prev.href", message: "must be a string" }]],
    ["an infinite nextOffset", { page: { nextOffset: Number.POSITIVE_INFINITY } }, [{ path: "page.nextOffset", message: "must be a string or a number" }]],
    ["a nextOffset object", { page: { nextOffset: { at: 2 } } }, [{ path: "page.nextOffset", message: "must be a string or a number" }]],
    ["page not an object", { page: 3 }, [{ path: "page", message: "must be an object" }]],
    [
      "several faults at once",
      { statements: 1, links: { next: { href: 1 }, prev: 2 } },
      [
        { path: "statements", message: "must be an array" },
        { path: "links.next.href", message: "must be a string" },
        { path: "links.prev", message: "must be an object with an href" },
      ],
    ],
  ])("refuses %s, naming the part", (_, body, issues) => {
    expect(issuesOf(body)).toEqual(issues);
  });
});
