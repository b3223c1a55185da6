// Redaction: no error the SDK throws may carry the bearer token or a client
// secret, even when a server or a custom fetch echoes them back. Everything that comes from outside — a server's text, body and
// headers, a URL or link it named, a platform or custom-fetch error — passes
// through here first, and every cut of such text is made here too, after the
// redaction: cut first, a secret's prefix would no longer be recognised.

const REDACTED = "[redacted]";
/** Shorter secrets are only replaced as whole words: "t" must not eat every letter t of a server's message. */
const WHOLE_WORD_BELOW = 8;

/**
 * The forms a secret takes when echoed: as is, JSON-escaped (slashes too, as
 * PHP does), URL- and form-encoded; and the same of its base64 and base64url
 * encodings (a server that quotes a request it could not use may encode it).
 */
export function secretForms(secret: string): string[] {
  if (!secret) return [];
  const forms = [...escapedForms(secret), ...encodedForms(secret).flatMap(escapedForms)];
  return [...new Set(forms)];
}

function escapedForms(text: string): string[] {
  const json = JSON.stringify(text).slice(1, -1);
  return [text, json, json.replaceAll("/", "\\/"), encodeURIComponent(text), new URLSearchParams([["", text]]).toString().slice(1)];
}

/**
 * The secret's UTF-8 bytes in base64 and base64url, padded and not; and, for
 * a secret long enough that a piece of it is still unmistakable, the
 * characters that encode nothing but the secret when it sits inside a longer
 * encoded text at any of the three byte alignments (a whole request body
 * echoed in base64). The whole encodings come before those pieces: a piece
 * replaced first would leave the whole encoding's last characters standing.
 */
function encodedForms(secret: string): string[] {
  const bytes = new TextEncoder().encode(secret);
  const padded = base64(bytes);
  // Stryker disable next-line Regex: base64 has "=" only as its end's padding
  const forms = [padded, padded.replace(/=+$/, "")];
  if (secret.length >= WHOLE_WORD_BELOW) {
    // Stryker disable next-line EqualityOperator: three bytes of filler are four whole characters, so a fourth alignment is the first one again
    for (let offset = 0; offset < 3; offset++) {
      const shifted = new Uint8Array(offset + bytes.length);
      shifted.set(bytes, offset);
      // Characters of 6 bits: the first that starts after the filler bytes, up to the last that ends within the secret.
      forms.push(base64(shifted).slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6)));
    }
  }
  const urlSafe = (text: string) => text.replaceAll("+", "-").replaceAll("/", "_");
  return [...forms, ...forms.map(urlSafe)];
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Replaces every form of every secret in `text` by `[redacted]`. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    // Stryker disable next-line ConditionalExpression: a shortcut; replacing what is not there changes nothing
    if (!out.includes(secret)) continue;
    out =
      secret.length >= WHOLE_WORD_BELOW
        ? out.replaceAll(secret, REDACTED)
        : out.replace(new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(secret)}(?![A-Za-z0-9])`, "g"), REDACTED);
  }
  return out;
}

const MAX_TEXT = 200;

/**
 * Text for a message: every secret redacted in the whole text, and only then
 * cut to at most `max` characters, ellipsis included (server text and hrefs
 * can be long or hostile). A cut may land inside a `[redacted]` marker, never
 * inside a secret.
 */
export function clip(text: string, secrets: readonly string[], max = MAX_TEXT): string {
  const clean = redactText(text, secrets);
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/**
 * Text that was cut before it could be redacted (a body read up to its limit):
 * an end that begins a secret — its first characters, up to all but the last —
 * is dropped, since redaction can no longer recognise it. Text that was not
 * cut needs none of this.
 */
export function dropCutSecret(text: string, secrets: readonly string[]): string {
  let cut = 0;
  for (const secret of secrets) {
    // Stryker disable next-line EqualityOperator: at k = cut the cut found stays the same
    for (let k = Math.min(secret.length - 1, text.length); k > cut; k--) {
      if (text.endsWith(secret.slice(0, k))) {
        cut = k;
        break;
      }
    }
  }
  return cut ? text.slice(0, text.length - cut) : text;
}

/** `value` (parsed JSON, a header record) with every string redacted. */
export function redactValue<T>(value: T, secrets: readonly string[], depth = 0): T {
  if (secrets.length === 0) return value;
  if (typeof value === "string") return redactText(value, secrets) as T;
  if (typeof value !== "object" || value === null) return value;
  if (depth > 32) {
    // Deeper than is worth walking: kept only when no secret is anywhere in it, else replaced whole.
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch {
      // Not JSON (a cycle): nothing to tell it by.
    }
    return (text !== undefined && redactText(text, secrets) === text ? value : REDACTED) as T;
  }
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets, depth + 1)) as T;
  // fromEntries, not assignment: a "__proto__" key stays a key instead of becoming the copy's prototype.
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [redactText(key, secrets), redactValue(item, secrets, depth + 1)])) as T;
}

/**
 * A cause safe to keep: the error itself when nothing of it names a secret,
 * else a copy (same name, code and chain) with every secret redacted. Error
 * objects from a platform or a custom fetch may quote the request, headers
 * and all.
 */
export function redactCause(cause: unknown, secrets: readonly string[], depth = 0): unknown {
  // Stryker disable next-line ConditionalExpression: a shortcut; with no secret, mentions() finds none
  if (secrets.length === 0 || !mentions(cause, secrets)) return cause;
  // Anything but an Error is dropped: its shape is unknown, so no copy of it is known to be clean.
  if (!(cause instanceof Error) || depth > 4) return undefined;
  const copy = new Error(redactText(cause.message, secrets));
  copy.name = cause.name;
  copy.stack = redactText(cause.stack ?? `${cause.name}: ${cause.message}`, secrets);
  for (const [key, item] of Object.entries(cause)) {
    // Stryker disable next-line ConditionalExpression,StringLiteral: a plain "cause" copied here is replaced by its redacted copy below
    if (key !== "cause" && (typeof item !== "object" || item === null)) {
      Reflect.set(copy, key, typeof item === "string" ? redactText(item, secrets) : item);
    }
  }
  if ("cause" in cause) copy.cause = redactCause(cause.cause, secrets, depth + 1);
  return copy;
}

function mentions(value: unknown, secrets: readonly string[], depth = 0): boolean {
  if (value === null || value === undefined) return false;
  // Deeper than a copy keeps (redactCause drops it there): not looked at, so not known to be clean.
  if (depth > 4) return true;
  const hit = (text: string) => redactText(text, secrets) !== text;
  if (typeof value !== "object") return hit(String(value));
  // Stryker disable next-line StringLiteral: a text standing in for a missing stack names no secret either
  if (value instanceof Error && (hit(value.message) || hit(value.stack ?? ""))) return true;
  try {
    // Stryker disable next-line StringLiteral: a text standing in for what does not serialise names no secret either
    if (hit(JSON.stringify(value) ?? "")) return true;
  } catch {
    // Not serialisable (a cycle, a getter that throws): it cannot be shown clean, so assume the worst.
    return true;
  }
  return mentions((value as { cause?: unknown }).cause, secrets, depth + 1);
}
