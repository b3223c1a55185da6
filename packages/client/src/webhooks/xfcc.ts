// The `x-forwarded-client-cert` grammar (Envoy, Istio), read strictly. Behind a proxy that appends its element to what
// the client sent, the client writes the start of the value: anything that lets that part reach past itself could make
// the client's element pass for the proxy's, so such a value is refused whole, never repaired or read past.

/** Why a value is not a well-formed `x-forwarded-client-cert`. */
export type XfccFault =
  /** A `"` opened and never closed: it would swallow whatever follows, the proxy's element included. */
  | "unclosed-quote"
  /** A `\` inside quotes with nothing after it to escape. */
  | "dangling-escape"
  /** `,` and whitespace outside quotes: two header lines joined, as `Headers` joins them. A proxy writes a bare `,`. */
  | "joined-lines";

/** The elements of a value, each its key/value pairs (keys lower-cased), or why there are none. */
export type XfccParse = { elements: Map<string, string>[] } | { fault: XfccFault };

/**
 * Splits a value into `,`-separated elements of `;`-separated `key=value` pairs. Inside double quotes separators are
 * text, and `\` makes the next character text (`\"`, and the `\,` of an RFC 2253 subject).
 */
export function parseXfcc(value: string): XfccParse {
  const elements: Map<string, string>[] = [new Map()];
  let key = "";
  let text = "";
  let inKey = true;
  let quoted = false;
  const finishPair = () => {
    const name = key.trim().toLowerCase();
    if (name !== "") elements.at(-1)!.set(name, inKey ? "" : text);
    key = "";
    text = "";
    inKey = true;
  };
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (quoted) {
      if (c === "\\") {
        if (i + 1 === value.length) return { fault: "dangling-escape" };
        text += value[++i];
      } else if (c === '"') quoted = false;
      else text += c;
    } else if (c === '"' && !inKey) quoted = true;
    else if (c === "=" && inKey) inKey = false;
    else if (c === ";") finishPair();
    else if (c === ",") {
      if (value[i + 1] === " " || value[i + 1] === "\t") return { fault: "joined-lines" };
      finishPair();
      elements.push(new Map());
    } else if (inKey) key += c;
    else text += c;
  }
  if (quoted) return { fault: "unclosed-quote" };
  finishPair();
  return { elements };
}
