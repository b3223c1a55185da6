// Which links the paginator and downloads follow: resolveHref's refusals and
// the message and href each FdxLinkError carries.
import { describe, expect, it } from "vitest";
import { FdxLinkError } from "../../src/index.js";
import { resolveHref } from "../../src/pagination/links.js";

// The origin of a productsUrl such as https://api.test/fdx: hrefs resolve against it, never its path.
const ORIGIN = "https://api.test";
const refusal = (href: string) => {
  try {
    resolveHref(href, ORIGIN, () => []);
  } catch (error) {
    expect(error).toBeInstanceOf(FdxLinkError);
    expect((error as FdxLinkError).href).toBe(href);
    return (error as FdxLinkError).message;
  }
  throw new Error(`followed ${href}`);
};

describe("resolveHref", () => {
  it("resolves a host-relative href against the products origin and drops the fragment", () => {
    expect(resolveHref("/statements/v2/p/a?offset=2#top", ORIGIN, () => []).href).toBe("https://api.test/statements/v2/p/a?offset=2");
    expect(resolveHref("https://api.test/x", ORIGIN, () => []).href).toBe("https://api.test/x");
    // An empty fragment too: "/x#" and "/x" are one page (the paginator's loop check compares them).
    expect(resolveHref("/x#", ORIGIN, () => []).href).toBe("https://api.test/x");
  });

  it.each([
    ["https://user@api.test/x", "it carries credentials"],
    ["https://:pw@api.test/x", "it carries credentials"],
    ["https://user:pw@api.test/x", "it carries credentials"],
    ["ftp://api.test/x", "not an http(s) URL"],
    ["javascript:alert(1)", "not an http(s) URL"],
    ["https://other.test/x", "it leaves https://api.test"],
    ["http://api.test/x", "it leaves https://api.test"],
    ["https://api.test:8443/x", "it leaves https://api.test"],
    ["http://[", "not a valid URL"],
  ])("refuses %s: %s", (href, why) => {
    expect(refusal(href)).toBe(`Refusing link ${JSON.stringify(href)}: ${why}`);
  });

  it("quotes a long href cut to 200 characters with its ellipsis, and keeps it whole in href", () => {
    const href = `https://other.test/${"x".repeat(300)}`;
    expect(refusal(href)).toBe(`Refusing link ${JSON.stringify(`${href.slice(0, 199)}…`)}: it leaves https://api.test`);
  });
});
