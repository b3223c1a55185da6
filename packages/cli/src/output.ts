import { describeError, formatError } from "./errors.js";
import { printable, stripControls } from "./text.js";

export { printable, stripControls };

/** A writable the CLI prints to: process.stdout/stderr, or a test double. */
export interface Sink {
  write(text: string): unknown;
  isTTY?: boolean;
}

/**
 * Everything the CLI prints goes through here: data to stdout (a table, or
 * JSON with `--json` and nothing else), diagnostics to stderr. Every string
 * is scrubbed of the configured secrets first, a last line of defence on top
 * of the SDK's own guarantee that errors never carry the token.
 */
export class Output {
  /** `--json`: set once the command line is parsed. */
  json: boolean;
  readonly stdout: Sink;
  readonly stderr: Sink;
  private secrets: string[] = [];

  constructor(options: { json: boolean; stdout?: Sink; stderr?: Sink }) {
    this.json = options.json;
    this.stdout = options.stdout ?? process.stdout;
    this.stderr = options.stderr ?? process.stderr;
  }

  /** Strings never to print (tokens, client secrets). Too-short ones are ignored: they would mask ordinary text. */
  addSecrets(...values: (string | undefined)[]): void {
    for (const value of values) {
      if (value && value.length >= 4 && !this.secrets.includes(value)) this.secrets.push(value);
    }
    // Longest first, so a secret containing another is masked whole.
    this.secrets.sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.split(secret).join("***");
    return out;
  }

  /** Data for stdout: `value` as JSON with `--json`, else `text()` (called only then). */
  data(value: unknown, text: () => string): void {
    if (this.json) this.stdout.write(this.redact(`${jsonText(value, 2)}\n`));
    else this.stdout.write(this.redact(stripControls(ensureNewline(text()))));
  }

  /** One JSON value per line (`listen --json`), or a text line. */
  line(value: unknown, text: () => string): void {
    if (this.json) this.stdout.write(this.redact(`${jsonText(value)}\n`));
    else this.stdout.write(this.redact(stripControls(ensureNewline(text()))));
  }

  /** A diagnostic line on stderr (progress logs, verbose request lines, notices). */
  info(text: string): void {
    this.stderr.write(this.redact(stripControls(ensureNewline(text))));
  }

  /** An error on stderr: `{ "error": … }` with `--json`, else the text form with FDX code and debugMessage. */
  error(error: unknown): void {
    if (this.json) this.stderr.write(this.redact(`${jsonText({ error: describeError(error) })}\n`));
    else this.stderr.write(this.redact(stripControls(ensureNewline(formatError(error)))));
  }
}

/**
 * JSON with DEL and the C1 controls escaped too: JSON.stringify escapes only
 * C0, and a terminal may act on a raw U+009B (CSI) in server text.
 */
function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function ensureNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

/** A value as one table cell: nested values as compact JSON, absent ones as "-". */
export function cell(value: unknown): string {
  if (value === undefined || value === null || value === "") return "-";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** Columns padded to the widest cell, two spaces apart, a header row first. */
export function table(headers: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const cells = rows.map((row) => headers.map((_, i) => printable(cell(row[i]))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]!.length)));
  const format = (row: readonly string[]) =>
    row
      .map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [format(headers), format(widths.map((w) => "-".repeat(w))), ...cells.map(format)].join("\n");
}

/** `key  value` lines for one object; nested values as compact JSON. */
export function keyValues(object: Record<string, unknown>, order: readonly string[] = []): string {
  const keys = [...order.filter((k) => k in object), ...Object.keys(object).filter((k) => !order.includes(k))];
  if (keys.length === 0) return "(empty)";
  const width = Math.max(...keys.map((k) => k.length));
  return keys.map((k) => `${k.padEnd(width)}  ${printable(cell(object[k]))}`).join("\n");
}

/** Bytes for people: 1.2 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = "B";
  for (const u of units) {
    if (value < 1000) break;
    value /= 1000;
    unit = u;
  }
  return `${value.toFixed(1)} ${unit}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}
