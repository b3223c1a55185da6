// Terminal control sequences: CSI (ESC [ … final byte, or the C1 CSI), OSC
// (ESC ] … up to BEL or ST, or the C1 OSC), the string commands DCS, SOS, PM
// and APC (up to ST), and any other two-byte ESC sequence. An unterminated
// string command is cut to the end of the text, as a terminal would swallow it.
// eslint-disable-next-line no-control-regex
const SEQUENCES = /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text safe for a terminal: escape sequences (colours, cursor moves, screen
 * clears, OSC window titles and hyperlinks) removed whole, other C0/C1
 * control characters removed; newlines and tabs kept. Applied to everything
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
