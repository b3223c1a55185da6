import { describe, expect, it } from "vitest";
import { parseXfcc } from "../../src/webhooks/xfcc.js";

const pairs = (value: string) => {
  const parsed = parseXfcc(value);
  return "fault" in parsed ? parsed : parsed.elements.map((element) => Object.fromEntries(element));
};

describe("parseXfcc", () => {
  it("splits elements on , and pairs on ;, lower-casing keys", () => {
    expect(pairs('By=spiffe://a;HASH=ab;Subject="";URI=spiffe://b,Hash=cd;DNS=x')).toEqual([
      { by: "spiffe://a", hash: "ab", subject: "", uri: "spiffe://b" },
      { hash: "cd", dns: "x" },
    ]);
  });

  it("keeps separators, escaped quotes and an RFC 2253 subject's \\, inside quotes", () => {
    expect(pairs('Subject="CN=Doe\\, John,O=a;b \\"c\\"";Hash=ab')).toEqual([{ subject: 'CN=Doe, John,O=a;b "c"', hash: "ab" }]);
  });

  it("refuses a quote left open, which would swallow the element appended after it", () => {
    expect(pairs('Hash=aa;Subject=",By=spiffe://proxy;Hash=bb')).toEqual({ fault: "unclosed-quote" });
    expect(pairs('Hash=aa;Subject="x\\",Hash=bb')).toEqual({ fault: "unclosed-quote" });
  });

  it("refuses a backslash with nothing after it to escape", () => {
    expect(pairs('Hash=aa;Subject="CN=x\\')).toEqual({ fault: "dangling-escape" });
  });

  it("refuses two header lines joined with , and whitespace outside quotes", () => {
    expect(pairs("By=spiffe://proxy;Hash=bb, Hash=aa")).toEqual({ fault: "joined-lines" });
    expect(pairs("Hash=aa,\tHash=bb")).toEqual({ fault: "joined-lines" });
    // Inside quotes it is text, as in a subject.
    expect(pairs('Subject="CN=a, O=b";Hash=aa')).toEqual([{ subject: "CN=a, O=b", hash: "aa" }]);
  });
});
