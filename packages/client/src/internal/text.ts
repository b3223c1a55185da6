const MAX_TEXT = 200;

/** Text for a message, at most 200 characters with its ellipsis (server text and hrefs can be long or hostile). */
export function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}
