import type { FdxIssue } from "../core/error.js";

// Turns a webhook body into a plain JSON value that is safe to hand on. JSON.parse itself is safe, but a later copy or
// merge of its result is not: `target[key] = value` with key `__proto__` swaps a prototype, and a naive deep merge of
// `{"constructor":{"prototype":…}}` writes into Object.prototype. So the copy drops those keys, which no notification
// member uses, and a user's own merge of the result stays harmless.

const DROPPED_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** Deeper than any notification; a bound keeps hostile nesting from exhausting the stack (and ends cycles). */
const MAX_DEPTH = 64;

export type JsonResult = { ok: true; value: unknown } | { ok: false; issue: FdxIssue };

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Decodes bytes or text and parses JSON; an object passes through. Never throws. */
export function readJson(input: unknown): JsonResult {
  let text: string;
  if (typeof input === "string") {
    text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  } else if (input instanceof ArrayBuffer || ArrayBuffer.isView(input)) {
    const bytes = input instanceof ArrayBuffer ? new Uint8Array(input) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    try {
      text = decoder.decode(bytes); // also drops a leading BOM
    } catch {
      return { ok: false, issue: { path: "", message: "body is not valid UTF-8" } };
    }
  } else {
    return sanitize(input);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The SyntaxError quotes the body; hostile text has no place in logs.
    return { ok: false, issue: { path: "", message: "body is not valid JSON" } };
  }
  return sanitize(parsed);
}

/** A copy of a JSON-like value with ordinary prototypes, without the dropped keys. Never throws. */
export function sanitize(value: unknown): JsonResult {
  try {
    return { ok: true, value: copy(value, 0) };
  } catch (error) {
    if (error instanceof NotJson) return { ok: false, issue: { path: error.path?.join(".") ?? "", message: error.message } };
    // A caller's object whose getter or proxy trap throws: not readable as JSON.
    return { ok: false, issue: { path: "", message: "body could not be read as JSON" } };
  }
}

class NotJson extends Error {
  constructor(
    /** Filled in from the inside out as the error leaves each level; `undefined` to name no path. */
    readonly path: (string | number)[] | undefined,
    message: string,
  ) {
    super(message);
  }
}

// Runs on every delivery, so it allocates nothing per member beyond the copy; a bad member's path is built on the way out.
function copy(value: unknown, depth: number): unknown {
  if (typeof value !== "object") {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean" || value === undefined) return value;
    throw new NotJson([], "is not a JSON value");
  }
  if (value === null) return null;
  // No path here: it would be made of the sender's keys, of any length.
  if (depth >= MAX_DEPTH) throw new NotJson(undefined, `body is nested deeper than ${MAX_DEPTH} levels`);
  let at: string | number = 0;
  try {
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (let i = 0; i < value.length; i++) {
        at = i;
        out.push(copy(value[i], depth + 1));
      }
      return out;
    }
    const out: Record<string, unknown> = {};
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (DROPPED_KEYS.has(key)) continue;
      at = key;
      const member = copy((value as Record<string, unknown>)[key], depth + 1);
      // Absent and undefined mean the same in JSON.
      if (member !== undefined) out[key] = member;
    }
    return out;
  } catch (error) {
    if (error instanceof NotJson) error.path?.unshift(at);
    throw error;
  }
}
