import { describe, expect, it } from "vitest";
import { printable, stripControls } from "../src/text.js";

describe("text from a server, for a terminal", () => {
  it("loses OSC titles, screen clears, colours, hyperlinks and C1 controls whole; keeps any other text", () => {
    const hostile =
      "no such \u001b]0;pwned\u0007\u001b[2Jthing \u001b[1;31mred\u001b[0m \u009b2J\u009d0;t\u009c \u001b]8;;https://evil\u001b\\link\u001b]8;;\u001b\\ \u001bc\u0000\u0008\u007f é 日本";
    expect(stripControls(hostile)).toBe("no such thing red  link  é 日本");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the assertion is that no control character is left
    expect(stripControls(hostile)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it("loses every bidirectional override, embedding, isolate and mark (U+202E reverses what follows on a terminal)", () => {
    const bidi = ["\u061c", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"];
    for (const c of bidi) expect(stripControls(`invoice${c}fdp.exe`)).toBe("invoicefdp.exe");
    expect(printable("statement \u202egnp.exe\u202c saved")).toBe("statement gnp.exe saved");
    // Other format characters of ordinary text stay: a zero-width joiner in an emoji, an Arabic word.
    expect(stripControls("👩\u200d💻 مرحبا")).toBe("👩\u200d💻 مرحبا");
  });

  it("an unterminated OSC swallows the rest, as a terminal would", () => {
    expect(stripControls("a\u001b]0;title to the end")).toBe("a");
  });

  it("keeps newlines and tabs in our own text; one-line server text gets spaces instead", () => {
    expect(stripControls("a\n\tb\r\n")).toBe("a\n\tb\n");
    expect(printable("line one\nerror: forged\tx\r")).toBe("line one error: forged x");
  });
});
