// Opaque page cursors: base64url JSON of the whole query state, so later pages
// need nothing but the href (and editing one is caught, not misread).

export interface PageQuery {
  providerId: string;
  accountId: string;
  /** Range bounds in epoch ms, `null` when open. */
  start: number | null;
  end: number | null;
  offset: number;
  limit: number;
}

function toBase64Url(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(encoded: string): string {
  const binary = atob(encoded.replaceAll("-", "+").replaceAll("_", "/"));
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

export function encodeCursor(query: PageQuery): string {
  const { providerId: p, accountId: a, start: s, end: e, offset: o, limit: l } = query;
  return toBase64Url(JSON.stringify({ p, a, s, e, o, l }));
}

const isBound = (v: unknown): v is number | null => v === null || Number.isSafeInteger(v);
const isCount = (v: unknown, min: number): v is number => Number.isSafeInteger(v) && (v as number) >= min;

/** The query state of a cursor, or `undefined` if it was not made by this mock. */
export function decodeCursor(cursor: string): PageQuery | undefined {
  try {
    const raw: unknown = JSON.parse(fromBase64Url(cursor));
    if (typeof raw !== "object" || raw === null) return undefined;
    const { p, a, s, e, o, l } = raw as Record<string, unknown>;
    if (typeof p !== "string" || typeof a !== "string" || !isBound(s) || !isBound(e) || !isCount(o, 0) || !isCount(l, 1)) {
      return undefined;
    }
    return { providerId: p, accountId: a, start: s, end: e, offset: o, limit: l };
  } catch {
    return undefined;
  }
}
