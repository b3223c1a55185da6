// Terminal control sequences: CSI (ESC [ … final byte, or the C1 CSI), OSC
// (ESC ] … up to BEL or ST, or the C1 OSC), the string commands DCS, SOS, PM
// and APC (up to ST), and any other two-byte ESC sequence. An unterminated
// string command is cut to the end of the text, as a terminal would swallow it.
// biome-ignore-start lint/suspicious/noControlCharactersInRegex: matching control sequences is what this pattern is for
const SEQUENCES =
  /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;
// biome-ignore-end lint/suspicious/noControlCharactersInRegex: the pattern above
// C0 and C1 controls but newline and tab, and the bidirectional formatting
// characters (the Arabic letter mark, LRM/RLM, the embeddings and overrides
// U+202A–U+202E, the isolates U+2066–U+2069): from a server, U+202E can make
// a file name or a message read backwards on the terminal ("Trojan Source").
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is what this pattern is for
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text safe for a terminal: escape sequences (colours, cursor moves, screen
 * clears, OSC window titles and hyperlinks) removed whole, other C0/C1
 * control characters and the bidirectional overrides, embeddings, isolates
 * and marks removed; newlines and tabs kept. Applied to everything
 * the CLI prints as text, a last line of defence for server-sourced strings.
 */
export function stripControls(text: string): string {
  return text.replace(SEQUENCES, "").replace(CONTROLS, "");
}

/**
 * Server-provided text for one line of output: control sequences and
 * characters removed, and line breaks and tabs made spaces (a server's
 * message must not start a line of its own that could pass for the CLI's).
 */
export function printable(text: string): string {
  return stripControls(text).replace(/[\t\n]/g, " ");
}
